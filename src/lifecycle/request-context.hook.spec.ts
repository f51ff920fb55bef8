import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { currentRequestId, currentTraceparent } from '../common/request-context';
import { registerRequestContext } from './request-context.hook';

test("the handler of a POST runs in its request's context, also when the body arrives late", async (t) => {
  // The Fastify the router runs on, as its Nest adapter builds it.
  const app = new FastifyAdapter().getInstance();
  t.after(() => app.close());
  // As app.factory.ts reads /mcp bodies: as text, handed on by Fastify's content-type parser.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  let n = 0;
  registerRequestContext(app, () => `generated-${++n}`);
  app.post('/mcp', async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return { seen: currentRequestId(), traceparent: currentTraceparent() ?? null, body: request.body };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const post = (headers: Record<string, string>, chunks: string[]) =>
    new Promise<{ header: unknown; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ header: res.headers['x-request-id'], body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on('error', reject);
      // The body in pieces, the last one well after the headers: parsed in a later 'data' event.
      req.flushHeaders();
      let i = 0;
      const next = () => (i < chunks.length ? req.write(chunks[i++], () => setTimeout(next, 20)) : req.end());
      setTimeout(next, 20);
    });
  const [a, b] = await Promise.all([
    post({ 'x-request-id': 'req-a', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, ['{"x":', '1}']),
    post({}, ['{"y":', '2', '}']),
  ]);
  assert.deepEqual(a, { header: 'req-a', body: { seen: 'req-a', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', body: '{"x":1}' } });
  assert.equal(b.header, 'generated-1');
  assert.deepEqual(b.body, { seen: 'generated-1', traceparent: null, body: '{"y":2}' });
});
