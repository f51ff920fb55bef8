import { Agent, request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { guardedFetch } from '../src/backends/transports/remote-transport';

/**
 * The client side of one backend call over HTTP, alone: what each way of making the same
 * `tools/call` to the null backend costs this process in CPU. The router's HTTP path is the
 * SDK's Client over StreamableHTTPClientTransport with the router's guardedFetch; the others show
 * what the SDK, fetch and a pooled node:http client each add.
 */

const CALL = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fast', arguments: {} } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export interface ClientCost {
  client: string;
  cpuMicrosPerCall: number;
  callsPerSecond: number;
  /** MaxListenersExceededWarning warnings this client caused (see run.ts). */
  listenerWarnings: number;
}

/** Counts MaxListenersExceededWarning warnings instead of printing them; returns the running count. */
export function countListenerWarnings(): () => number {
  let count = 0;
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    if (w.name === 'MaxListenersExceededWarning') count++;
    else process.stderr.write(`${w.name}: ${w.message}\n`);
  });
  return () => count;
}

const warnings = countListenerWarnings();

async function measure(client: string, calls: number, concurrency: number, one: (i: number) => Promise<void>): Promise<ClientCost> {
  const warningsBefore = warnings();
  for (let i = 0; i < 500; i++) await one(i); // warm up
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) await one(next++);
    }),
  );
  const used = process.cpuUsage(cpu);
  // Warnings are emitted when the listeners are added; GC-driven cleanup may lag a little.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    client,
    cpuMicrosPerCall: (used.user + used.system) / calls,
    callsPerSecond: calls / ((performance.now() - started) / 1000),
    listenerWarnings: warnings() - warningsBefore,
  };
}

async function sdkClient(url: string, fetchFn?: FetchLike): Promise<{ client: Client; call: () => Promise<void> }> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetchFn ? { fetch: fetchFn } : {}));
  return {
    client,
    call: async () => {
      const result = await client.callTool({ name: 'fast', arguments: {} }, CallToolResultSchema, { timeout: 30_000 });
      if (result.isError) throw new Error('tool error');
    },
  };
}

export async function measureHttpClients(url: string, calls = 5000, concurrency = 16): Promise<ClientCost[]> {
  const rows: ClientCost[] = [];
  const plain = await sdkClient(url);
  rows.push(await measure('SDK Client + StreamableHTTPClientTransport (global fetch)', calls, concurrency, plain.call));
  await plain.client.close();
  const guarded = await sdkClient(url, guardedFetch());
  rows.push(await measure('SDK Client + StreamableHTTPClientTransport + router guardedFetch (the router today)', calls, concurrency, guarded.call));
  await guarded.client.close();
  rows.push(
    await measure('fetch + JSON.parse, no SDK', calls, concurrency, async (i) => {
      const response = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(CALL(i)) });
      const message = (await response.json()) as { result?: unknown };
      if (!message.result) throw new Error('no result');
    }),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  rows.push(
    await measure(
      'pooled node:http request + JSON.parse',
      calls,
      concurrency,
      (i) =>
        new Promise<void>((resolve, reject) => {
          const req = request(url, { method: 'POST', agent, headers: HEADERS }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown };
              if (message.result) resolve();
              else reject(new Error('no result'));
            });
          });
          req.on('error', reject);
          req.end(JSON.stringify(CALL(i)));
        }),
    ),
  );
  agent.destroy();
  return rows;
}
