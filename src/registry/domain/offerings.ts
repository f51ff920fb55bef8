/**
 * A backend's resources, resource templates and prompts (MCP spec, "Resources" and "Prompts") as
 * the router publishes them: each under a name and URI that carry its backend, so two backends
 * never collide and a read or get finds its way back (architecture §16). Their texts are cleaned
 * like tool descriptions, since they reach a model.
 */
import { cleanText } from './sanitize';

/** What a backend offers besides tools, one kind per `*_list` method. */
export type OfferingKind = 'resources' | 'templates' | 'prompts';

export const OFFERING_KINDS: readonly OfferingKind[] = ['resources', 'templates', 'prompts'];

/** What a backend declared at its handshake beside tools (spec "Capabilities"). */
export interface OfferingCapabilities {
  resources: boolean;
  prompts: boolean;
}

export const NO_OFFERINGS: OfferingCapabilities = Object.freeze({ resources: false, prompts: false });

/** The capability a kind belongs to: templates are part of `resources`. */
export function capabilityOf(kind: OfferingKind): keyof OfferingCapabilities {
  return kind === 'prompts' ? 'prompts' : 'resources';
}

/** The scheme of every URI the router publishes for a backend's resource. */
export const RESOURCE_URI_PREFIX = 'centralmcp://';

/**
 * Between a backend's name and its prompt's or resource's own name. Backend names never hold `_`
 * (architecture §3), so the first `__` ends the backend's name whatever the rest holds.
 */
export const NAME_SEPARATOR = '__';

const BACKEND_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** Caps on a backend's texts, as for its tools. */
const DESCRIPTION_MAX_CHARS = 2000;
const TITLE_MAX_CHARS = 200;
/** Names and URIs longer than this are left out: a client must send them back whole. */
export const MAX_OFFERING_ID_CHARS = 2000;

/**
 * `centralmcp://<backend>/<the backend's URI, unchanged>`. The backend's URI is appended as it is,
 * not encoded, so a URI template stays a template: a client expands
 * `centralmcp://docs/file:///{path}` to a URI that maps back to the one the backend's template
 * makes.
 */
export function publishedUri(backend: string, uri: string): string {
  return `${RESOURCE_URI_PREFIX}${backend}/${uri}`;
}

/** `<backend>__<name>`: a prompt's, resource's or template's published name. */
export function publishedName(backend: string, name: string): string {
  return `${backend}${NAME_SEPARATOR}${name}`;
}

/** A published name or URI taken apart: the backend, and what that backend calls it. */
export interface Origin {
  backend: string;
  id: string;
}

/** The backend and its own URI of a published resource URI; undefined when it is not one. */
export function originOfUri(uri: string): Origin | undefined {
  if (!uri.startsWith(RESOURCE_URI_PREFIX)) return undefined;
  const rest = uri.slice(RESOURCE_URI_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash < 1) return undefined;
  const backend = rest.slice(0, slash);
  const id = rest.slice(slash + 1);
  return BACKEND_NAME.test(backend) && id.length > 0 ? { backend, id } : undefined;
}

/** The backend and its own name of a published prompt name; undefined when it is not one. */
export function originOfName(name: string): Origin | undefined {
  const at = name.indexOf(NAME_SEPARATOR);
  if (at < 1) return undefined;
  const backend = name.slice(0, at);
  const id = name.slice(at + NAME_SEPARATOR.length);
  return BACKEND_NAME.test(backend) && id.length > 0 ? { backend, id } : undefined;
}

/** Spec "Annotations": who the content is for, how much it matters, when it last changed. */
export interface OfferingAnnotations {
  audience?: string[];
  priority?: number;
  lastModified?: string;
}

/** One entry of `resources/list`, as published. */
export interface PublishedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: OfferingAnnotations;
}

/** One entry of `resources/templates/list`, as published. */
export interface PublishedTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: OfferingAnnotations;
}

/** One argument of a prompt. */
export interface PublishedPromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** One entry of `prompts/list`, as published. */
export interface PublishedPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PublishedPromptArgument[];
}

/** What the router publishes of one kind. */
export interface PublishedOffering {
  resources: PublishedResource;
  templates: PublishedTemplate;
  prompts: PublishedPrompt;
}

/** Why an entry is left out, or undefined when it can be published. */
type Skip = (reason: string) => void;

/**
 * A backend's listing of one kind as published: namespaced, texts cleaned, only the fields the
 * spec defines kept (icons and `_meta` are the backend's, not the router's to pass on). An entry
 * without its identifier, or whose identifier is too long or listed twice, is left out and
 * reported through `onSkip`.
 */
export function publishOfferings<K extends OfferingKind>(
  kind: K,
  backend: string,
  listed: readonly unknown[],
  onSkip: Skip = () => undefined,
): PublishedOffering[K][] {
  const seen = new Set<string>();
  const out: PublishedOffering[K][] = [];
  for (const raw of listed) {
    const entry = asRecord(raw);
    const key = kind === 'resources' ? 'uri' : kind === 'templates' ? 'uriTemplate' : 'name';
    const id = entry[key];
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_OFFERING_ID_CHARS) {
      onSkip(`a ${kind} entry has no usable \`${key}\``);
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(publishOne(kind, backend, entry) as PublishedOffering[K]);
  }
  return out;
}

function publishOne(kind: OfferingKind, backend: string, entry: Record<string, unknown>): PublishedOffering[OfferingKind] {
  const texts = cleanTexts(entry);
  const name = typeof entry.name === 'string' ? entry.name : '';
  switch (kind) {
    case 'resources':
      return {
        uri: publishedUri(backend, entry.uri as string),
        name: publishedName(backend, cleanText(name, TITLE_MAX_CHARS)),
        ...texts,
        ...optionalString(entry, 'mimeType'),
        ...(typeof entry.size === 'number' && Number.isFinite(entry.size) ? { size: entry.size } : {}),
        ...annotationsOf(entry.annotations),
      };
    case 'templates':
      return {
        uriTemplate: publishedUri(backend, entry.uriTemplate as string),
        name: publishedName(backend, cleanText(name, TITLE_MAX_CHARS)),
        ...texts,
        ...optionalString(entry, 'mimeType'),
        ...annotationsOf(entry.annotations),
      };
    case 'prompts': {
      const args = Array.isArray(entry.arguments) ? entry.arguments.map(asRecord).filter((a) => typeof a.name === 'string') : undefined;
      return {
        // Prompt names are sent back by `prompts/get`: kept as the backend spells them.
        name: publishedName(backend, name),
        ...texts,
        ...(args
          ? { arguments: args.map((a) => ({ name: a.name as string, ...cleanTexts(a), ...(typeof a.required === 'boolean' ? { required: a.required } : {}) })) }
          : {}),
      };
    }
  }
}

/** `title` and `description`, cleaned of hidden characters and capped (architecture §4). */
export function cleanTexts(entry: Record<string, unknown>): { title?: string; description?: string } {
  return {
    ...(typeof entry.title === 'string' ? { title: cleanText(entry.title, TITLE_MAX_CHARS) } : {}),
    ...(typeof entry.description === 'string' ? { description: cleanText(entry.description, DESCRIPTION_MAX_CHARS) } : {}),
  };
}

function optionalString(entry: Record<string, unknown>, key: 'mimeType'): { mimeType?: string } {
  const value = entry[key];
  return typeof value === 'string' ? { [key]: cleanText(value, TITLE_MAX_CHARS) } : {};
}

function annotationsOf(raw: unknown): { annotations?: OfferingAnnotations } {
  const a = asRecord(raw);
  const audience = Array.isArray(a.audience) ? a.audience.filter((x): x is string => x === 'user' || x === 'assistant') : undefined;
  const annotations: OfferingAnnotations = {
    ...(audience && audience.length > 0 ? { audience } : {}),
    ...(typeof a.priority === 'number' && a.priority >= 0 && a.priority <= 1 ? { priority: a.priority } : {}),
    ...(typeof a.lastModified === 'string' ? { lastModified: cleanText(a.lastModified, 64) } : {}),
  };
  return Object.keys(annotations).length > 0 ? { annotations } : {};
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
