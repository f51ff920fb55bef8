import { Agent, request, type IncomingMessage } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * A plain MCP client session for measuring gateways side by side: JSON-RPC over pooled keep-alive
 * sockets, with none of the SDK client's cost (about ten times a raw request's CPU, which on a
 * 2-core box would be measured as the gateway's). Speaks the three shapes a gateway here serves:
 * Streamable HTTP (an answer as JSON or as one SSE event), the older HTTP+SSE transport (a GET
 * stream that carries every answer, messages POSTed beside it) and stdio (the backend itself, for
 * the latency no gateway adds).
 */
export interface PeerSession {
  /** One JSON-RPC request; resolves with its `result`, rejects on an error answer. */
  call(method: string, params: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

const ACCEPT = 'application/json, text/event-stream';
const VERSION = '2025-06-18';
const INITIALIZE = { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench-peers', version: '1' } };

interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { message?: string };
}

/** A call's answer, or an error once `ms` pass without one: a stuck target fails its row, not the run. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const CALL_TIMEOUT_MS = 30_000;

function settle(answer: Answer): unknown {
  if (answer.error !== undefined) throw new Error(`JSON-RPC error: ${answer.error.message ?? JSON.stringify(answer.error)}`);
  return answer.result;
}

function post(agent: Agent, url: string, body: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ res, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message in a body: plain JSON, or the `data:` of an SSE event. */
function messageIn(text: string): Answer {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Answer;
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .find((line) => line.startsWith('{') && line.includes('"id"'));
  if (data === undefined) throw new Error(`no JSON-RPC answer in: ${text.slice(0, 200)}`);
  return JSON.parse(data) as Answer;
}

/** A Streamable HTTP session: initialized (keeping `mcp-session-id` when the server gives one). */
export async function streamableSession(url: string): Promise<PeerSession> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const headers: Record<string, string> = {};
  let id = 0;
  const send = async (method: string, params: Record<string, unknown>, notification = false): Promise<unknown> => {
    const message = notification ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id: ++id, method, params };
    const { res, text } = await post(agent, url, JSON.stringify(message), headers);
    if (notification) return undefined;
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string') headers['mcp-session-id'] = session;
    return settle(messageIn(text));
  };
  await send('initialize', INITIALIZE);
  headers['mcp-protocol-version'] = VERSION;
  await send('notifications/initialized', {}, true);
  return { call: (method, params) => within(send(method, params), CALL_TIMEOUT_MS, method), close: () => agent.destroy() };
}

/** An HTTP+SSE session: GET `sseUrl` for the stream, POST to the endpoint it names. */
export async function sseSession(sseUrl: string): Promise<PeerSession> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  let id = 0;
  const opened = new Promise<{ endpoint: string; res: IncomingMessage }>((resolve, reject) => {
    const req = request(sseUrl, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${sseUrl}: HTTP ${res.statusCode}`));
        return;
      }
      // A stream that ends before naming its endpoint is refused (a no-op once it has named one).
      res.on('end', () => reject(new Error(`GET ${sseUrl}: the stream ended before an endpoint event`)));
      let buffer = '';
      let endpoint: string | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: ?(.*)$/m.exec(event)?.[1];
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart())
            .join('\n');
          if (name === 'endpoint' && endpoint === undefined) {
            endpoint = new URL(data, sseUrl).toString();
            resolve({ endpoint, res });
          } else if (data.startsWith('{')) {
            const answer = JSON.parse(data) as Answer;
            const pending = typeof answer.id === 'number' ? waiting.get(answer.id) : undefined;
            if (pending) {
              waiting.delete(answer.id as number);
              pending.resolve(answer);
            }
          }
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  const stream = await within(opened, CALL_TIMEOUT_MS, `GET ${sseUrl}`);
  const send = (method: string, params: Record<string, unknown>, notification = false): Promise<unknown> => {
    const mine = ++id;
    const message = notification ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id: mine, method, params };
    const answered = notification ? Promise.resolve<Answer>({}) : new Promise<Answer>((resolve, reject) => waiting.set(mine, { resolve, reject }));
    return post(agent, stream.endpoint, JSON.stringify(message), {}).then(async ({ res, text }) => {
      if (res.statusCode === undefined || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      return notification ? undefined : settle(await answered);
    });
  };
  await within(send('initialize', INITIALIZE), CALL_TIMEOUT_MS, 'initialize');
  await send('notifications/initialized', {}, true);
  return {
    call: (method, params) => within(send(method, params), CALL_TIMEOUT_MS, method),
    close: () => {
      stream.res.destroy();
      agent.destroy();
    },
  };
}

/** The backend itself over stdio: what a call costs with no gateway in between. */
export async function stdioSession(command: string, args: string[]): Promise<PeerSession & { child: ChildProcess }> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (a: Answer) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const answer = JSON.parse(line) as Answer;
    if (typeof answer.id === 'number') waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id as number);
  });
  let id = 0;
  const send = (method: string, params: Record<string, unknown>, notification = false): Promise<unknown> => {
    const mine = ++id;
    child.stdin.write(JSON.stringify(notification ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id: mine, method, params }) + '\n');
    if (notification) return Promise.resolve(undefined);
    return new Promise<Answer>((resolve) => waiting.set(mine, resolve)).then(settle);
  };
  await send('initialize', INITIALIZE);
  await send('notifications/initialized', {}, true);
  return { child, call: (method, params) => within(send(method, params), CALL_TIMEOUT_MS, method), close: () => child.kill() };
}
