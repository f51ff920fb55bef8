import { isJsonObject, type JsonObject } from '../../common/json-object';
import type { ContentBlock, ToolResultLike } from './bounding';

/**
 * Media sent once (architecture §6). An image, audio or binary resource block travels in the
 * result's `content`, as its block, for the model; the envelope (`structuredContent`) holds a
 * reference in its place, the block's fields without its base64 bytes plus `bytes` (decoded size)
 * and `data_in: "content"`. Base64 is a third larger than the bytes and means nothing to a model
 * as text: sent twice (or four times, when a backend repeats its blocks in its own structured
 * content, as the filesystem server's `read_media_file` does) it pushed the image itself out of
 * the budget.
 *
 * The payload rides along with its reference under a symbol key, which `JSON.stringify` skips and
 * object spread keeps: the envelope serializes without it, and the model's blocks get it back.
 */
export const MEDIA_DATA: unique symbol = Symbol('media data');

/** Where a reference says the bytes went. */
const DATA_IN = 'content';

/** A reference block: the media's fields but its bytes, with the bytes under {@link MEDIA_DATA}. */
type MediaReference = ContentBlock & { [MEDIA_DATA]?: string };

/** One media block of a result, as an oversize check and its message need it. */
export interface MediaBlock {
  /** `image`, `audio` or `resource`. */
  type: string;
  mimeType?: string;
  /** Base64 characters (bytes as sent). */
  base64Bytes: number;
  /** The block as the model receives it. */
  block: ContentBlock;
}

/**
 * The result with each media block of its `content` replaced by a reference that carries its bytes
 * out of band, and every copy of those blocks in `structuredContent` replaced by the same
 * reference; a `structuredContent` left holding nothing but references is dropped, as a text block
 * that repeats it is (architecture §6). A result without media comes back as it is.
 */
export function referMedia(r: ToolResultLike): ToolResultLike {
  if (!Array.isArray(r.content)) return r;
  // Made only once a media block is met: most results hold none and are returned as they are.
  let payloads: Map<string, JsonObject> | undefined;
  let content: ContentBlock[] | undefined;
  for (let i = 0; i < r.content.length; i++) {
    const block = r.content[i];
    const ref = referenceOf(block);
    if (ref === undefined) {
      content?.push(block);
      continue;
    }
    payloads ??= new Map();
    content ??= r.content.slice(0, i);
    payloads.set(ref[MEDIA_DATA] as string, withoutPayload(ref));
    content.push(ref);
  }
  if (payloads === undefined || content === undefined) return r;
  const sc = r.structuredContent;
  if (!isJsonObject(sc)) return { ...r, content };
  const replaced = replaceRepeats(sc, payloads, 0);
  const rest: ToolResultLike = { ...r, content };
  if (isJsonObject(replaced) && !onlyReferences(replaced, 0)) return { ...rest, structuredContent: replaced };
  delete rest.structuredContent;
  return rest;
}

/** The model's form of a block that {@link referMedia} made a reference: the block with its bytes. Else undefined. */
export function restoredMedia(block: ContentBlock): ContentBlock | undefined {
  const data = (block as MediaReference)[MEDIA_DATA];
  if (typeof data !== 'string') return undefined;
  const { bytes: _bytes, data_in: _in, ...fields } = block;
  if (block.type === 'resource' && isJsonObject(fields.resource)) {
    const { bytes: _b, data_in: _i, ...resource } = fields.resource;
    return { ...fields, resource: { ...resource, blob: data } };
  }
  return { ...fields, data };
}

/** Every media block a result's `content` carries (after {@link referMedia}), with its size as sent. */
export function mediaBlocks(r: ToolResultLike): MediaBlock[] {
  const found: MediaBlock[] = [];
  for (const block of Array.isArray(r.content) ? r.content : []) {
    const data = (block as MediaReference)[MEDIA_DATA];
    if (typeof data !== 'string') continue;
    const resource = isJsonObject(block.resource) ? block.resource : undefined;
    const mimeType = typeof block.mimeType === 'string' ? block.mimeType : typeof resource?.mimeType === 'string' ? resource.mimeType : undefined;
    found.push({ type: block.type, ...(mimeType !== undefined ? { mimeType } : {}), base64Bytes: data.length, block });
  }
  return found;
}

/** Bytes that base64 text decodes to. */
export function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/** A media block as a reference, or undefined when the block carries no valid base64 media. */
function referenceOf(block: ContentBlock): MediaReference | undefined {
  if ((block.type === 'image' || block.type === 'audio') && isBase64(block.data) && typeof block.mimeType === 'string') {
    const { data, ...fields } = block;
    return { ...fields, bytes: decodedBytes(data), data_in: DATA_IN, [MEDIA_DATA]: data };
  }
  if (block.type === 'resource' && isJsonObject(block.resource) && typeof block.resource.uri === 'string' && isBase64(block.resource.blob)) {
    const { blob, ...resource } = block.resource;
    return { ...block, resource: { ...resource, bytes: decodedBytes(blob), data_in: DATA_IN }, [MEDIA_DATA]: blob };
  }
  return undefined;
}

function withoutPayload(ref: MediaReference): JsonObject {
  const { [MEDIA_DATA]: _data, ...fields } = ref;
  return fields;
}

/** Structured content is walked this deep for copies of media blocks, no deeper. */
const MAX_DEPTH = 16;

/** `value` with every object that copies a media block of `content` (same bytes) replaced by its reference. */
function replaceRepeats(value: unknown, payloads: ReadonlyMap<string, JsonObject>, depth: number): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => replaceRepeats(v, payloads, depth + 1));
  const obj = value as JsonObject;
  const payload = typeof obj.data === 'string' ? obj.data : isJsonObject(obj.resource) && typeof obj.resource.blob === 'string' ? obj.resource.blob : undefined;
  const ref = payload !== undefined ? payloads.get(payload) : undefined;
  if (ref !== undefined) return ref;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) out[k] = replaceRepeats(v, payloads, depth + 1);
  return out;
}

/** True when every leaf of `value` sits inside a media reference: nothing but the content again. */
function onlyReferences(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return false;
  const items = Array.isArray(value) ? value : undefined;
  if (items !== undefined) return items.length > 0 && items.every((v) => onlyReferences(v, depth + 1));
  const obj = value as JsonObject;
  if (obj.data_in === DATA_IN || (isJsonObject(obj.resource) && obj.resource.data_in === DATA_IN)) return true;
  const values = Object.values(obj);
  return values.length > 0 && values.every((v) => onlyReferences(v, depth + 1));
}

/**
 * Base64 as clients check it (the MCP SDK's schema accepts what `atob` accepts): data that is not
 * would make the client reject the whole result.
 */
export function isBase64(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    atob(value);
    return true;
  } catch {
    return false;
  }
}
