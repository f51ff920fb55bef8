/**
 * Cleaning of text a backend controls before a model reads it. A tool
 * description is an instruction channel into the caller's model, so anything a human reviewing the
 * catalog could not see is removed: terminal escapes, control characters, bidirectional overrides
 * (Trojan Source, CVE-2021-42574), zero-width characters, Unicode tag characters ("ASCII smuggling":
 * U+E0041... spells hidden English that models read and people do not) and variation selectors
 * (which can carry a byte each). What is left is visible text, on one line, within a length cap.
 */
import { isJsonObject, type JsonObject } from '../../common/json-object';

/**
 * ANSI/VT escape sequences: CSI (`ESC [` or 8-bit U+009B) with its parameters; the string
 * sequences a terminal hides (OSC, DCS, SOS, PM, APC, 7- or 8-bit) up to BEL or ST; and the other
 * two-character escapes.
 */
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex -- matching terminal control sequences is this pattern's job
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;

/**
 * Everything invisible: controls (C0, DEL, C1), format characters (bidi controls U+202A–202E,
 * U+2066–2069, U+200E/F, U+061C; zero-width U+200B–200D, U+2060, U+FEFF; soft hyphen; tags
 * U+E0001, U+E0020–E007F), the unassigned rest of the tag block, variation selectors, Hangul
 * fillers and lone surrogates. Tabs and newlines are controls too: they become spaces below.
 */
// eslint-disable-next-line no-misleading-character-class -- the class lists lone fillers and selectors on purpose, to remove each
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\u{E0000}-\u{E007F}\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u115F\u1160\u3164\uFFA0]/gu;

/**
 * `text` as a model may safely see it: escape sequences and invisible characters removed, every
 * run of whitespace (tabs, newlines, line separators, no-break spaces) one space, trimmed, and at
 * most `maxChars` code points (the last one `…` when cut). Line structure is not kept: a
 * description is one line in `find_tool`, and newlines are how injected text fakes a new
 * "message".
 */
export function cleanText(text: string, maxChars: number): string {
  const visible = stripHidden(text).replace(/\s+/gu, ' ').trim();
  const points = Array.from(visible);
  if (points.length <= maxChars) return visible;
  return `${points
    .slice(0, Math.max(0, maxChars - 1))
    .join('')
    .trimEnd()}…`;
}

/**
 * `text` without escape sequences and invisible characters, line breaks and tabs made spaces, and
 * nothing else changed: for strings a call may have to send back exactly (an `enum` or `const`
 * value, a `default`), whose spacing is part of the value.
 */
export function stripHidden(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCES, '')
    .replace(/[\t\n\v\f\r\u0085]/g, ' ')
    .replace(INVISIBLE, '');
}

/** True when `text` holds anything `stripHidden` would remove or change. */
export function hasHiddenCharacters(text: string): boolean {
  return stripHidden(text) !== text;
}

/**
 * `text` with every invisible character shown as `\u{XXXX}` (an escape sequence shows as its
 * `\u{1B}` and the visible rest): for a person reviewing text a backend wrote, in a terminal that
 * would otherwise obey or hide them. Line feeds are kept; callers pass one line or lay out lines.
 */
export function escapeHidden(text: string): string {
  return text.replace(INVISIBLE, (ch) => (ch === '\n' ? ch : `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`));
}

/** Longest name a call may give (the batch entry's `name` bound, architecture §5). */
export const MAX_TOOL_NAME_CHARS = 200;

/**
 * Why a backend's tool name cannot be published, or undefined when it can. Names are never
 * rewritten: a call must name the tool exactly as its backend does (architecture §4), and a cleaned name
 * would either not resolve or resolve to a tool other than the one shown. So a name carrying
 * anything `cleanText` would remove or change (escapes, invisible characters, whitespace) is
 * refused, and the tool left out of the catalog, with the reason logged by the caller.
 */
export function unsafeToolNameReason(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > MAX_TOOL_NAME_CHARS) return `the name is longer than ${MAX_TOOL_NAME_CHARS} characters`;
  if (/\s/u.test(name)) return 'the name contains whitespace';
  if (cleanText(name, MAX_TOOL_NAME_CHARS) !== name) return 'the name contains control, escape or invisible characters';
  return undefined;
}

/**
 * A schema as a model may see it (all of it reaches the model with `find_tool`'s
 * `include_schema`): every `description` and `title` cleaned as a tool description is, and every
 * other string (`enum`, `const`, `default`, `examples`, `$comment`, `pattern`, …) stripped of
 * hidden characters with its spacing kept (`stripHidden`). Keys are not touched: property names
 * are the argument keys the backend expects, so a schema with a hidden character in a key is
 * refused whole (`unsafeSchemaReason`). Returns a new object; cycles cannot occur in schemas that
 * came from JSON.
 */
export function cleanSchemaTexts(schema: JsonObject, maxChars: number): JsonObject {
  return cleanObject(schema, maxChars);
}

/**
 * Why a schema cannot be published, or undefined when it can: a key somewhere in it (a property
 * name, a `$defs` name, a key inside a `default`) holds a character `stripHidden` would remove.
 * Such a key cannot be cleaned (the call must send it exactly) nor shown as it is.
 */
export function unsafeSchemaReason(schema: unknown): string | undefined {
  return hiddenKeyIn(schema) ? 'a key of its schema contains control, escape or invisible characters' : undefined;
}

function hiddenKeyIn(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hiddenKeyIn);
  if (!isJsonObject(node)) return false;
  return Object.entries(node).some(([key, value]) => hasHiddenCharacters(key) || hiddenKeyIn(value));
}

function cleanNode(node: unknown, maxChars: number): unknown {
  if (typeof node === 'string') return stripHidden(node);
  if (Array.isArray(node)) return node.map((item) => cleanNode(item, maxChars));
  return isJsonObject(node) ? cleanObject(node, maxChars) : node;
}

function cleanObject(node: JsonObject, maxChars: number): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    const cleaned = (key === 'description' || key === 'title') && typeof value === 'string' ? cleanText(value, maxChars) : cleanNode(value, maxChars);
    // defineProperty: a `__proto__` property of a JSON schema must stay plain data.
    Object.defineProperty(out, key, { value: cleaned, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** What a model is shown of a tool's description: in `find_tool`, and in a tool published directly. */
export const MAX_SHOWN_DESCRIPTION_CHARS = 300;
