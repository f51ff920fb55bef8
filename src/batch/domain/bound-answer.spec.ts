import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolResultLike } from '../../cursor/domain/bounding';
import type { ReadAnswer } from '../batch.types';
import { boundAnswer, type CursorIssuer } from './bound-answer';

const issuer: CursorIssuer = { issue: (p) => `c1.${Buffer.from(JSON.stringify(p)).toString('base64url')}`, ttlSeconds: 900 };
const envelopes = {
  single: (answer: ReadAnswer) => ({ ok: answer.status === 'ok', ...answer }),
  item: (answer: ReadAnswer) => ({ index: 3, id: 'é"\\', ...answer }),
};
const results: Record<string, ToolResultLike> = {
  small: { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } },
  items: { content: [], structuredContent: { rows: Array.from({ length: 500 }, (_, i) => ({ i, s: 'é✓😀"\\\u0001' })) } },
  text: { content: [{ type: 'text', text: 'é✓😀"\\\n'.repeat(3000) }] },
  string: { content: [], structuredContent: { body: 'x'.repeat(20_000) } },
  backendCursor: { content: [], structuredContent: { rows: Array.from({ length: 500 }, (_, i) => i), nextCursor: 'b2' } },
};

test('the JSON an answer comes with is its envelope\'s serialization, within the budget', () => {
  for (const [envelopeName, envelope] of Object.entries(envelopes)) {
    for (const [resultName, result] of Object.entries(results)) {
      for (const budget of [{ maxBytes: 4096, maxItems: 200 }, { maxBytes: 200_000, maxItems: 50 }, { maxBytes: 200_000, maxItems: 1000 }]) {
        const base: ReadAnswer = { tool: 'read "it"', server: 'files', status: 'ok' };
        const bounded = boundAnswer({ base, result }, budget, envelope, issuer);
        const what = `${envelopeName} ${resultName} ${budget.maxBytes}/${budget.maxItems}`;
        assert.ok(bounded, what);
        assert.equal(bounded.json, JSON.stringify(envelope(bounded.value)), what);
        assert.ok(Buffer.byteLength(bounded.json) <= budget.maxBytes, what);
        if (bounded.value.next_cursor !== undefined) {
          const position = JSON.parse(Buffer.from(bounded.value.next_cursor.slice(3), 'base64url').toString()) as never;
          const next = boundAnswer({ base, result, from: position }, budget, envelope, issuer);
          assert.ok(next, what);
          assert.equal(next.json, JSON.stringify(envelope(next.value)), `${what}, resumed`);
        }
      }
    }
  }
});
