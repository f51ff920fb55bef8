import { isJsonObject, type JsonObject } from '../../common/json-object';
import type { ContentBlock, ToolResultLike } from './bounding';
import { isBase64, restoredMedia } from './media';

/**
 * What a model reads (the `content` of a `tools/call` result) beside what a program reads (its
 * `structuredContent`, the envelope). MCP spec 2025-06-18, "Tool Result": `content` is for the
 * model, so it carries a short block with the envelope's fields but the result, then the
 * backend's own blocks as they came: text unescaped, images and audio as such, embedded resources.
 * The router serves no resources, so a `resource_link` becomes text saying where it came from.
 */

/** `{"content":[`, `],"structuredContent":` and `,"isError":false}`: the framing of a whole result. */
export const RESULT_FRAME_BYTES = utf8Bytes('{"content":[],"structuredContent":,"isError":false}');

/** A text block. */
export function textBlock(text: string): ContentBlock {
  return { type: 'text', text };
}

/**
 * The blocks a model reads for one backend result (already bounded): each block checked and
 * passed on with its type and payload, and, when the backend's data is in `structuredContent`
 * only (its text copy was dropped as a repeat, architecture §6, or never sent), that data as one text
 * block: the only string field as it is (a file's text), else its compact JSON.
 */
export function modelBlocks(result: ToolResultLike | undefined, server: string | null): ContentBlock[] {
  if (result === undefined) return [];
  const blocks = (Array.isArray(result.content) ? result.content : []).map((block) => passOn(block, server));
  const sc = result.structuredContent;
  if (sc !== null && typeof sc === 'object' && !Array.isArray(sc) && !blocks.some((b) => b.type === 'text')) {
    blocks.unshift(textBlock(structuredText(sc)));
  }
  return blocks;
}

/** `structuredContent` as a model reads it: its only string field as is, else its JSON. */
export function structuredText(sc: Record<string, unknown>): string {
  const keys = Object.keys(sc);
  const only = keys.length === 1 ? sc[keys[0]] : undefined;
  return typeof only === 'string' ? only : JSON.stringify(sc);
}

/**
 * A backend block as the client will accept it: only the fields its type requires, checked, since
 * one malformed block would make a client's schema check reject the whole result. Annotations and
 * `_meta` stay in `structuredContent`. Anything else becomes text that says what it was.
 */
function passOn(block: ContentBlock, server: string | null): ContentBlock {
  // Its fields as the backend sent them: `type` is read as unknown, it may not even be a string.
  // A media block the envelope refers to (./media) gets its bytes back here, the one place they go.
  const b: JsonObject = restoredMedia(block) ?? block;
  switch (b.type) {
    case 'text':
      if (typeof b.text === 'string') return { type: 'text', text: b.text };
      break;
    case 'image':
    case 'audio':
      if (isBase64(b.data) && typeof b.mimeType === 'string') return { type: b.type, data: b.data, mimeType: b.mimeType };
      break;
    case 'resource': {
      const r = b.resource;
      if (!isJsonObject(r) || typeof r.uri !== 'string') break;
      const body = typeof r.text === 'string' ? { text: r.text } : isBase64(r.blob) ? { blob: r.blob } : undefined;
      if (body !== undefined) {
        return { type: 'resource', resource: { uri: r.uri, ...(typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {}), ...body } };
      }
      break;
    }
    case 'resource_link':
      if (typeof b.uri === 'string') return textBlock(linkText(b, b.uri, server));
      break;
  }
  return textBlock(
    `[a content block of type ${JSON.stringify(String(b.type).slice(0, 40))} from server ${serverName(server)} that this router cannot pass on]`,
  );
}

/**
 * A `resource_link` as text: this router publishes no resources (it answers `resources/*` with
 * "method not found"), so the client cannot fetch the URI from it; the model learns what the
 * link named and which backend holds it.
 */
function linkText(link: JsonObject, uri: string, server: string | null): string {
  const details = [
    typeof link.name === 'string' ? `name ${JSON.stringify(link.name)}` : undefined,
    typeof link.mimeType === 'string' ? link.mimeType : undefined,
    typeof link.description === 'string' ? JSON.stringify(link.description.slice(0, 200)) : undefined,
  ].filter((d) => d !== undefined);
  return (
    `[resource link from server ${serverName(server)}: ${uri}${details.length > 0 ? ` (${details.join(', ')})` : ''}; ` +
    'this router does not serve resources: read it with a tool of that server]'
  );
}

function serverName(server: string | null): string {
  return server === null ? '(none)' : JSON.stringify(server);
}

/**
 * The whole `tools/call` result as JSON text: `content` (each block serialized once, by whoever
 * measured it) and the structured content's JSON, as is. The same bytes as
 * `JSON.stringify({ content, structuredContent, isError })`.
 */
export function resultJson(blockJsons: readonly string[], structuredJson: string, isError: boolean): string {
  return `{"content":[${blockJsons.join(',')}],"structuredContent":${structuredJson},"isError":${isError}}`;
}

/** UTF-8 bytes of a JSON block list's members: each block's JSON and the comma before it. */
export function blocksBytes(blocks: readonly ContentBlock[]): number {
  let total = 0;
  for (const block of blocks) total += 1 + utf8Bytes(JSON.stringify(block));
  return total;
}

/** UTF-8 bytes `text` takes inside a JSON string, quotes excluded. Escaping is per character, so these add up. */
export function escapedBytes(text: string): number {
  return utf8Bytes(JSON.stringify(text)) - 2;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
