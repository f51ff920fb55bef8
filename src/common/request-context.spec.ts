import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currentRequestId, requestContext, saneRequestId } from './request-context';

test('a short token is kept as the correlation id; anything else is not', () => {
  for (const ok of ['a', 'req-42', '0af7651916cd43dd8448eb211c80319c', 'trace:1.2_3', 'x'.repeat(128)]) assert.equal(saneRequestId(ok), ok);
  for (const bad of [undefined, '', ' a', 'a b', '-leading', 'x'.repeat(129), 'a\nlevel=error', '{"json":1}', ['a', 'b']]) {
    assert.equal(saneRequestId(bad), undefined, String(bad));
  }
});

test('the id follows the work across awaits, and only inside the request', async () => {
  assert.equal(currentRequestId(), undefined);
  await requestContext.run({ requestId: 'r1' }, async () => {
    await new Promise((r) => setTimeout(r, 1));
    assert.equal(currentRequestId(), 'r1');
  });
  assert.equal(currentRequestId(), undefined);
});
