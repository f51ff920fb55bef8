import { isJsonObject, type JsonObject } from '../../common/json-object';
import { cleanTexts } from '../../registry/domain/offerings';
import { characters } from './read-call';

/** Longest URI or prompt name a request may carry (a published one is at most this plus its prefix). */
export const MAX_OFFERING_REQUEST_CHARS = 2100;
/** Prompt arguments are strings (spec "Prompts"); this many at most, each at most this long. */
const MAX_PROMPT_ARGUMENTS = 64;
const MAX_PROMPT_ARGUMENT_CHARS = 20_000;

const READ_FIELDS = new Set(['uri', 'cursor', '_meta']);
const GET_FIELDS = new Set(['name', 'arguments', '_meta']);

/**
 * `resources/read` params: `uri` (a published URI) and, to resume a cut read, `cursor` (the
 * router's addition, from the cut result's `_meta`). Messages never echo values.
 */
export function checkResourceRead(params: JsonObject, maxCursorChars: number): { ok: true; uri: string; cursor?: string } | { ok: false; message: string } {
  if (Object.keys(params).some((k) => !READ_FIELDS.has(k)))
    return { ok: false, message: 'Invalid params: resources/read takes `uri` and, to resume, `cursor`' };
  const { uri, cursor } = params;
  if (typeof uri !== 'string' || uri.length === 0 || characters(uri) > MAX_OFFERING_REQUEST_CHARS) {
    return { ok: false, message: `Invalid params: \`uri\` must be a string of 1..${MAX_OFFERING_REQUEST_CHARS} characters` };
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length === 0 || characters(cursor) > maxCursorChars)) {
    return { ok: false, message: `Invalid params: \`cursor\` must be a string of 1..${maxCursorChars} characters` };
  }
  return typeof cursor === 'string' ? { ok: true, uri, cursor } : { ok: true, uri };
}

/** `prompts/get` params: `name` (a published prompt name) and `arguments`, an object of strings. */
export function checkPromptGet(params: JsonObject): { ok: true; name: string; arguments: Record<string, string> } | { ok: false; message: string } {
  if (Object.keys(params).some((k) => !GET_FIELDS.has(k))) return { ok: false, message: 'Invalid params: prompts/get takes `name` and `arguments`' };
  const { name } = params;
  const args = params.arguments ?? {};
  if (typeof name !== 'string' || name.length === 0 || characters(name) > MAX_OFFERING_REQUEST_CHARS) {
    return { ok: false, message: `Invalid params: \`name\` must be a string of 1..${MAX_OFFERING_REQUEST_CHARS} characters` };
  }
  if (!isJsonObject(args)) return { ok: false, message: 'Invalid params: `arguments` must be an object' };
  const entries = Object.entries(args);
  if (entries.length > MAX_PROMPT_ARGUMENTS) return { ok: false, message: `Invalid params: at most ${MAX_PROMPT_ARGUMENTS} arguments` };
  if (entries.some(([, v]) => typeof v !== 'string' || characters(v) > MAX_PROMPT_ARGUMENT_CHARS)) {
    return { ok: false, message: `Invalid params: every argument must be a string of at most ${MAX_PROMPT_ARGUMENT_CHARS} characters` };
  }
  return { ok: true, name, arguments: Object.fromEntries(entries) as Record<string, string> };
}

/**
 * A backend's `prompts/get` result as the router answers it: the description cleaned like a
 * listing's, the messages as sent except that the URIs of embedded resources and resource links
 * are published ones, so a client can read them through the router (architecture §16).
 */
export function promptResult(result: Record<string, unknown>, publish: (backendUri: string) => string): { description?: string; messages: unknown[] } {
  const messages = Array.isArray(result.messages) ? result.messages.filter(isJsonObject) : [];
  return {
    ...(typeof result.description === 'string' ? { description: cleanTexts({ description: result.description }).description } : {}),
    messages: messages.map((message) => (isJsonObject(message.content) ? { ...message, content: publishedContent(message.content, publish) } : message)),
  };
}

function publishedContent(content: JsonObject, publish: (backendUri: string) => string): JsonObject {
  if (content.type === 'resource' && isJsonObject(content.resource) && typeof content.resource.uri === 'string') {
    return { ...content, resource: { ...content.resource, uri: publish(content.resource.uri) } };
  }
  if (content.type === 'resource_link' && typeof content.uri === 'string') {
    return { ...content, ...cleanTexts(content), uri: publish(content.uri) };
  }
  return content;
}
