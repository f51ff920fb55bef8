import type { Position } from '../../cursor/domain/position';
import type { CursorIssuer } from './bound-answer';
import { boundResult, type Budget, type ContentBlock, type ToolResultLike } from './bounding';
import { utf8Bytes } from './model-content';
import type { Bounds } from './read-answer';

/**
 * The `_meta` key of a cut `resources/read` result: `{truncated, bounds, next_cursor?,
 * cursor_expires_in_seconds?}`, the fields a cut tool answer carries (architecture §6, §16).
 */
export const READ_BOUNDS_META_KEY = 'centralmcp-router/bounds';

/** Room held for the cut's `_meta` while a page is sized (a cursor of a content position is far shorter). */
const META_RESERVE_BYTES = 700;

/** One entry of a `resources/read` result (spec "Resource Contents"): text or base64 blob. */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  [k: string]: unknown;
}

/** A bounded `resources/read` result: its JSON, and whether it was cut. */
export interface BoundRead {
  json: string;
  truncated: boolean;
}

/**
 * A `resources/read` result cut to `budget` with the bounding of tool results (architecture §6):
 * each entry is a content block, a text entry's text is cut where a block's would be, a blob is
 * never cut (one too large for a page is replaced by a text entry saying so). A cut result carries
 * its bounds and, when the rest can be fetched, a cursor in `_meta` under
 * {@link READ_BOUNDS_META_KEY}; the caller resumes with `resources/read` `{uri, cursor}`. Each
 * entry's `uri` is published with `publish`. Undefined when no page fits.
 */
export function boundResourceRead(
  contents: readonly ResourceContents[],
  budget: Budget,
  from: Position | undefined,
  cursors: CursorIssuer,
  requestedUri: string,
  publish: (backendUri: string) => string,
): BoundRead | undefined {
  const result: ToolResultLike = { content: contents.map(asBlock) };
  const wire = (candidate: ToolResultLike) => candidate.content.map((block) => asContents(block, requestedUri, publish));
  let maxBytes = budget.maxBytes;
  for (let attempt = 0; attempt < 4; attempt++) {
    const outcome = boundResult(
      result,
      { maxBytes, maxItems: budget.maxItems },
      from,
      (c) => utf8Bytes(JSON.stringify({ contents: wire(c) })) + META_RESERVE_BYTES,
    );
    const page = wire(outcome.result);
    if (!outcome.truncated) {
      const json = JSON.stringify({ contents: page });
      if (utf8Bytes(json) <= budget.maxBytes) return { json, truncated: false };
    }
    const cursor = outcome.next && outcome.resumable ? cursors.issue(outcome.next) : undefined;
    const bounds: Bounds = { reason: outcome.reason ?? 'bytes', item_limit: budget.maxItems, byte_limit: budget.maxBytes, resumable: cursor !== undefined };
    const meta =
      cursor === undefined ? { truncated: true, bounds } : { truncated: true, bounds, next_cursor: cursor, cursor_expires_in_seconds: cursors.ttlSeconds };
    const json = JSON.stringify({ contents: page, _meta: { [READ_BOUNDS_META_KEY]: meta } });
    const overshoot = utf8Bytes(json) - budget.maxBytes;
    if (overshoot <= 0 && page.length > 0) return { json, truncated: true };
    if (maxBytes - Math.max(overshoot, 1) < 1) return undefined;
    maxBytes -= Math.max(overshoot, 1);
  }
  return undefined;
}

/** A text entry is a text block (so its text can be cut); anything else rides as one whole block. */
function asBlock(entry: ResourceContents): ContentBlock {
  const { text, ...rest } = entry;
  return typeof text === 'string' ? { ...rest, type: 'text', text } : { ...rest, type: 'blob' };
}

/** A block back to a `contents` entry; the bounding's own notice (an omitted blob) under the URI asked for. */
function asContents(block: ContentBlock, requestedUri: string, publish: (backendUri: string) => string): ResourceContents {
  const { type: _type, ...rest } = block;
  const uri = typeof rest.uri === 'string' ? publish(rest.uri) : requestedUri;
  return { ...rest, uri };
}
