/**
 * The ceiling: a bare node:http JSON-RPC responder that parses each POSTed request and answers a
 * fixed tool result with its id. No MCP, no framework: what one Node process on this box can do.
 * Run: node bare-responder.js PORT
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } };

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  });
}).listen(port, '127.0.0.1', () => process.stderr.write(`bare responder listening on ${port}\n`));
