import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApp } from '../../src/app.factory';
import { BackendsService } from '../../src/backends/backends.service';
import type { BackendConfig, RouterConfig, StdioBackendConfig } from '../../src/config/config.types';
import { SERVER_ENTRIES, stdioBackend } from './backend-servers';
import { stopDescendantsOnExit } from './reaper';

/** The repository root (compiled tests live in dist-test/test/support). */
export const ROOT = resolve(__dirname, '../../..');

/**
 * The folder the tests were compiled into (`dist-test/`, see tsconfig.test.json), beside the
 * production build in `dist/`: a router started with `npm start` keeps its build while tests run.
 */
export const BUILD = resolve(__dirname, '../..');

/** The router's entry point in the tests' own build: what every test that starts a router process runs. */
export const ROUTER_MAIN = join(BUILD, 'src', 'main.js');

// Whatever a test file starts is stopped when it ends, also when it fails or is stopped half-way.
stopDescendantsOnExit();

export function tempDir(prefix = 'centralmcp-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The real filesystem server over `dir`, as backend `files`. */
export function filesBackend(dir: string, extra: Partial<StdioBackendConfig> = {}): StdioBackendConfig {
  return stdioBackend('files', SERVER_ENTRIES.filesystem, [dir], { timeoutMs: 15_000, ...extra });
}

/** The real memory server with its own graph file, as backend `memory`. */
export function memoryBackend(file: string, extra: Partial<StdioBackendConfig> = {}): StdioBackendConfig {
  return stdioBackend('memory', SERVER_ENTRIES.memory, [], { env: { MEMORY_FILE_PATH: file }, timeoutMs: 15_000, ...extra });
}

/** The real "everything" server over stdio, as backend `everything`. */
export function everythingBackend(extra: Partial<StdioBackendConfig> = {}): StdioBackendConfig {
  return stdioBackend('everything', SERVER_ENTRIES.everything, ['stdio'], { timeoutMs: 15_000, ...extra });
}

/** A complete config with test defaults: port 0, loopback, small timeouts. */
export function testConfig(backends: BackendConfig[], overrides: Partial<RouterConfig> = {}): RouterConfig {
  return {
    http: { host: '127.0.0.1', port: 0, bodyLimitBytes: 4 * 1024 * 1024, allowedHosts: [], allowedOrigins: [] },
    budgets: { responseMaxBytes: 200_000, responseMaxItems: 200, batchResponseMaxBytes: 300_000 },
    cursor: { ttlSeconds: 900, secret: randomBytes(32) },
    logLevel: 'warn',
    backends,
    policy: { readOnly: { allow: [], deny: [] } },
    // Audit lines go to a file of the test's own, not into the test runner's output.
    audit: { sink: 'file', path: join(tempDir('centralmcp-audit-'), 'audit.jsonl') },
    ...overrides,
  };
}

export interface RunningRouter {
  app: NestFastifyApplication;
  url: string;
  /** A connected SDK client; closed by `close()`. */
  connect(): Promise<Client>;
  close(): Promise<void>;
}

/** What the router knows of backend `name` now (its state, era, pid…), as `/health` reports it. */
export function backendState(router: RunningRouter, name: string) {
  const state = router.app
    .get(BackendsService)
    .states()
    .find((s) => s.name === name);
  if (state === undefined) throw new Error(`no backend named ${name}`);
  return state;
}

/** Starts the real router on an ephemeral loopback port. */
export async function startRouter(config: RouterConfig): Promise<RunningRouter> {
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  // As main.ts does, backends connect once the router listens; tests start from a loaded catalog.
  await app.get(BackendsService).start();
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}/mcp`;
  const clients: Client[] = [];
  return {
    app,
    url,
    async connect() {
      const client = new Client({ name: 'router-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await app.close();
    },
  };
}

/** Calls a published tool and returns its structured content. */
export async function callTool<N extends keyof AnswerOf>(
  client: Client,
  name: N,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; data: AnswerOf[N] }> {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, data: result.structuredContent as AnswerOf[N] };
}

/** A `tools/call` result as the SDK client parses it. */
export interface ToolResult {
  content?: { type: string; text?: string; data?: string; mimeType?: string; [k: string]: unknown }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

// The router's answers as a client reads them off the wire (architecture §1, §5), written from the
// client's side: the tests assert what is sent, not what the router's own types say.

/** A refusal's or a failed single call's error. */
export interface WireError {
  code: string;
  message: string;
}

/** The fields a single call's answer and a batch entry share. */
interface ReadFields {
  tool: string;
  server: string | null;
  status: string;
  result?: ToolResult;
  truncated?: true;
  bounds?: { reason: string; item_limit: number; byte_limit: number; resumable: boolean };
  next_cursor?: string;
  cursor_expires_in_seconds?: number;
}

/** `invoke_read_tool`'s and `invoke_tool`'s answer; a write that waits for confirmation adds its summary. */
export interface SingleAnswer extends ReadFields {
  ok: boolean;
  error?: WireError;
  summary?: { tool: string; server: string; argument_names: string[] };
  message?: string;
  confirmation?: string;
  confirmation_expires_in_seconds?: number;
}

/** One entry of `invoke_read_tool_batch`'s answer. */
export interface BatchItem extends ReadFields {
  index: number;
  id: string;
  error?: string;
  result_truncated?: true;
}

/** `invoke_read_tool_batch`'s answer; a rejected batch has `error` instead of results. */
export interface BatchAnswer {
  ok: boolean;
  status?: string;
  results: BatchItem[];
  counts: { total: number; succeeded: number; failed: number };
  failed_ids: string[];
  failed_indexes: number[];
  truncated: boolean;
  error?: WireError;
}

/** One `find_tool` hit. */
export interface ToolHit {
  name: string;
  server: string;
  description: string;
  params: { name: string; type: string; required: boolean }[];
  read_only: boolean;
  destructive: boolean;
  idempotent: boolean;
  score: number;
  schema?: Record<string, unknown>;
  trust_warning?: string;
}

/** `find_tool`'s answer; refused arguments have `error` instead of hits. */
export interface FindAnswer {
  hits: ToolHit[];
  note?: string;
  servers?: { name: string; tools: number; connected: boolean; summary: string }[];
  unavailable_servers?: { name: string; state: string }[];
  writes_note?: string;
  ok?: false;
  status?: string;
  error?: WireError;
}

/**
 * A JSON-RPC answer as a raw HTTP client reads it, `R` being what the method answers. Both `result`
 * and `error` are typed as there: a test reads the one it expects, and a missing one fails it.
 */
export interface RpcAnswer<R = RpcResult> {
  jsonrpc: string;
  id: string | number | null;
  result: R;
  error: { code: number; message: string; data?: unknown };
}

/** The results the tests read over raw HTTP: initialize, tools/list and tools/call. */
export interface RpcResult {
  protocolVersion: string;
  serverInfo: { name: string; version: string };
  instructions?: string;
  tools: { name: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** Each published tool's answer. */
export interface AnswerOf {
  find_tool: FindAnswer;
  invoke_read_tool: SingleAnswer;
  invoke_read_tool_batch: BatchAnswer;
  invoke_tool: SingleAnswer;
}

/**
 * What a model reads of a result: the first text block parsed (the envelope without `result`, or
 * the whole answer when there is no result) and every block after it.
 */
export function readAsModel<Head = SingleAnswer>(result: ToolResult): { head: Head; blocks: NonNullable<ToolResult['content']> } {
  const [first, ...blocks] = result.content ?? [];
  if (first?.type !== 'text' || typeof first.text !== 'string') throw new Error('the first block is not text');
  return { head: JSON.parse(first.text) as Head, blocks };
}

/**
 * A `tools/call` over plain HTTP: the result as the router sent it, and the UTF-8 bytes of that
 * result within the JSON-RPC answer (what the byte budgets bound).
 */
export async function rawToolCall(router: RunningRouter, name: string, args: Record<string, unknown>): Promise<{ result: ToolResult; bytes: number }> {
  const response = await fetch(router.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await response.text();
  const prefix = '{"jsonrpc":"2.0","id":1,"result":';
  if (!body.startsWith(prefix) || !body.endsWith('}')) throw new Error(`not a result: ${body.slice(0, 200)}`);
  const resultText = body.slice(prefix.length, -1);
  return { result: JSON.parse(resultText) as ToolResult, bytes: Buffer.byteLength(resultText) };
}
