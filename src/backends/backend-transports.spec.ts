import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { fetchWithoutRedirects } from './backend-transports';

let target: Server;
let redirector: Server;
let targetHits = 0;
let base = '';

before(async () => {
  target = createServer((_req, res) => {
    targetHits++;
    res.end('{}');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const targetPort = (target.address() as { port: number }).port;
  redirector = createServer((_req, res) => {
    res.writeHead(307, { location: `http://127.0.0.1:${targetPort}/mcp` });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
});
after(() => {
  target.close();
  redirector.close();
});

test('a backend redirect is refused, not followed: the other host sees nothing', async () => {
  await assert.rejects(fetchWithoutRedirects(`${base}/mcp`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer backend-secret' } }), /redirect/);
  assert.equal(targetHits, 0);
});
