import { Agent, request } from 'node:http';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * A what-if for the benchmarks only (BENCH_LEAN_HTTP=1 in bench/router-child.ts), not a fix: the
 * `tools/call` POSTs of every StreamableHTTPClientTransport go through a pooled node:http client
 * instead of the SDK's fetch path (undici, web streams, a long-lived AbortSignal per transport, the
 * router's TransformStream size cap). Everything else (initialize, tools/list, notifications, the
 * GET event stream, SSE answers) stays on the SDK path. It measures how much the proposed fix in
 * src/backends would save; it keeps the 8 MiB answer cap and refuses redirects like guardedFetch.
 * Plain http: only, which is what the benchmark's null backend speaks.
 */

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

interface TransportInternals {
  _url: URL;
  _sessionId?: string;
  _protocolVersion?: string;
  _requestInit?: { headers?: Record<string, string> };
  onmessage?: (message: JSONRPCMessage) => void;
}

export function installLeanHttpSend(): void {
  const agents = new Map<string, Agent>();
  const original = StreamableHTTPClientTransport.prototype.send;
  StreamableHTTPClientTransport.prototype.send = async function send(this: StreamableHTTPClientTransport, message, options) {
    const self = this as unknown as TransportInternals;
    if (options?.resumptionToken || !isJSONRPCRequest(message) || message.method !== 'tools/call' || self._url.protocol !== 'http:') {
      return original.call(this, message, options);
    }
    let agent = agents.get(self._url.origin);
    if (!agent) agents.set(self._url.origin, (agent = new Agent({ keepAlive: true, maxSockets: 64 })));
    const headers: Record<string, string> = {
      ...(self._requestInit?.headers ?? {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(self._sessionId ? { 'mcp-session-id': self._sessionId } : {}),
      ...(self._protocolVersion ? { 'mcp-protocol-version': self._protocolVersion } : {}),
    };
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(self._url, { method: 'POST', agent, headers }, (res) => {
        if ((res.statusCode ?? 0) >= 300 || !String(res.headers['content-type']).startsWith('application/json')) {
          res.resume();
          reject(new Error(`lean path: HTTP ${res.statusCode} ${String(res.headers['content-type'])}`));
          return;
        }
        const chunks: Buffer[] = [];
        let seen = 0;
        res.on('data', (c: Buffer) => {
          seen += c.length;
          if (seen > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(new Error('backend response over the size limit'));
          } else chunks.push(c);
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify(message));
    });
    self.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(text)));
  };
}
