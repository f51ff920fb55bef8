import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { boundResult, type BoundOutcome, type Budget, type ToolResultLike } from '../../src/answers/domain/bounding';
import type { Position } from '../../src/cursor/domain/position';

/** The single-call answer the caller would send, as architecture §6 measures it. */
export function envelope(candidate: ToolResultLike): number {
  return Buffer.byteLength(
    JSON.stringify({ ok: true, tool: 't', server: 's', status: 'ok', result: candidate, truncated: true, next_cursor: 'x'.repeat(200) }),
    'utf8',
  );
}

/** Follows `next` from the first page to the last, checking that every page fits the byte budget. */
export function follow(r: ToolResultLike, budget: Budget, measure = envelope): BoundOutcome[] {
  const pages: BoundOutcome[] = [];
  let from: Position | undefined;
  do {
    const page = boundResult(r, budget, from, measure);
    assert.ok(measure(page.result) <= budget.maxBytes, `page ${pages.length} over the byte budget`);
    pages.push(page);
    assert.ok(pages.length < 10_000, 'pages do not terminate');
    from = page.next;
  } while (from !== undefined);
  return pages;
}

/** A text content block. */
export const text = (t: string) => ({ type: 'text', text: t });
