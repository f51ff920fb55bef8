/**
 * OpenTelemetry traces as an operator sees them (architecture §8.1): the real router as its own
 * process, configured only by the standard OTEL_* variables, exporting to a test OTLP receiver
 * (the Collector's part, decoding OTLP/HTTP protobuf and JSON); a client that sends W3C
 * `traceparent`; backends that answer what trace context reached them.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from './support/backend-servers';
import { until, waitFor } from './support/backend-processes';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';
import { msgOf, spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';

const ECHO_SERVER = join(__dirname, 'fixtures', 'trace-echo-server.js');
const MRTR_SERVER = join(__dirname, 'fixtures', 'mrtr-server.js');
const SECRET = 'S3CRET-ARGUMENT-VALUE';
const SERVER = 2;
const CLIENT = 3;

/** A fresh W3C trace context of the test's own, as a traced client sends it. */
function clientContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

async function startEchoBackend(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [ECHO_SERVER, String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => stderr.includes('listening on port') || child.exitCode !== null, 30_000, 'echo backend listening');
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** A 2026-07-28 backend that sheds load with `input_required` (test/fixtures/mrtr-server.ts). */
async function startMrtrBackend(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MRTR_SERVER, '--port', String(port), '--name', 'mr'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => stderr.includes('listening on port') || child.exitCode !== null, 60_000, 'mrtr backend listening');
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

function routerYaml(httpUrl: string, mrtrUrl?: string, addedUrl?: string): string {
  return [
    'backends:',
    ...(mrtrUrl !== undefined ? ['  mr:', '    transport: http', `    url: ${JSON.stringify(mrtrUrl)}`] : []),
    ...(addedUrl !== undefined ? ['  added:', '    transport: http', `    url: ${JSON.stringify(addedUrl)}`, '    era: legacy'] : []),
    '  web:',
    '    transport: http',
    `    url: ${JSON.stringify(httpUrl)}`,
    '    era: legacy',
    ...stdioBackendYaml('local', ECHO_SERVER, ['--stdio'], { era: 'legacy' }),
  ].join('\n');
}

/** A JSON-RPC answer as this test reads it. */
interface RpcAnswer {
  result: {
    isError?: boolean;
    content: { type: string; text?: string }[];
    structuredContent: { counts?: { failed: number }; hits?: unknown[] };
  };
}

/** What the echo backend says reached it. */
interface Seen {
  traceparent: string | null;
  tracestate: string | null;
  meta: { traceparent?: string } | null;
}

/** One JSON-RPC request to /mcp as a 2025 client sends it, with the headers given. */
async function post(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: RpcAnswer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, body: (await res.json()) as RpcAnswer };
}

/** What the echo backend said reached it: the text block of its own answer. */
function seenByBackend(result: RpcAnswer['result']): Seen {
  const block = result.content.find((c) => c.type === 'text' && c.text?.includes('"meta"'));
  assert.ok(block?.text, `no echo block in ${JSON.stringify(result.content)}`);
  return JSON.parse(block.text) as Seen;
}

function spansOf(receiver: OtlpReceiver, traceId: string): ReceivedSpan[] {
  return receiver.spans.filter((s) => s.traceId === traceId);
}

function only(spans: ReceivedSpan[], check: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan {
  const found = spans.filter(check);
  assert.equal(found.length, 1, `${what}: ${JSON.stringify(spans.map((s) => [s.name, s.kind, s.spanId, s.parentSpanId]))}`);
  return found[0];
}

describe('traces exported over OTLP/HTTP protobuf', () => {
  let receiver: OtlpReceiver;
  let backend: { url: string; child: ChildProcess };
  let mrtr: { url: string; child: ChildProcess };
  let router: SpawnedRouter;
  let url: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    [backend, mrtr] = await Promise.all([startEchoBackend(), startMrtrBackend()]);
    router = spawnRouter(routerYaml(backend.url, mrtr.url), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'router-under-test',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    url = await router.listening();
    await until(async () => (await fetch(url.replace(/\/mcp$/, '/health/ready'))).status === 200, 60_000, 'every backend up');
  });

  after(async () => {
    router?.kill();
    backend?.child.kill('SIGKILL');
    mrtr?.child.kill('SIGKILL');
    await receiver?.close();
  });

  test('the boot log says where traces go', () => {
    const line = router.logs.find((l) => msgOf(l) === 'exporting traces');
    assert.ok(line, 'an "exporting traces" line');
    assert.deepEqual([line.endpoint, line.protocol, line.serviceName], [`${receiver.endpoint}/v1/traces`, 'http/protobuf', 'router-under-test']);
  });

  test("a client's traceparent continues through the router into the HTTP backend, and the receiver gets the router's spans in that trace", async () => {
    const caller = clientContext();
    const { body } = await post(
      url,
      'tools/call',
      { name: 'invoke_read_tool', arguments: { name: 'echo_trace', server: 'web', arguments: { token: SECRET } } },
      { traceparent: caller.traceparent, tracestate: 'vendor=abc' },
    );
    assert.equal(body.result.isError, false, JSON.stringify(body));
    const seen = seenByBackend(body.result);
    // The backend's request carries the router's span as its parent, in the header and in _meta.
    const hop = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(seen.traceparent ?? '');
    assert.ok(hop, `traceparent header at the backend: ${seen.traceparent}`);
    assert.equal(hop[1], caller.traceId, 'the same trace');
    assert.notEqual(hop[2], caller.spanId, "the router's own span, not the client's");
    assert.equal(seen.meta?.traceparent, seen.traceparent);
    assert.equal(seen.tracestate, 'vendor=abc');

    await receiver.waitFor(
      (spans) => spans.some((s) => s.spanId === hop[2]) && spans.some((s) => s.traceId === caller.traceId && s.kind === SERVER),
      'the call spans',
    );
    const spans = spansOf(receiver, caller.traceId);
    const request = only(spans, (s) => s.kind === SERVER, 'one request span');
    assert.equal(request.parentSpanId, caller.spanId, "the request span's parent is the client's span");
    assert.equal(request.name, 'tools/call invoke_read_tool');
    assert.equal(request.service, 'router-under-test');
    assert.equal(request.attributes['mcp.method.name'], 'tools/call');
    assert.equal(request.attributes['mcp.protocol.version'], '2025-11-25');
    assert.equal(request.attributes['gen_ai.tool.name'], 'invoke_read_tool');
    const call = only(spans, (s) => s.name === 'invoke_read_tool', 'one tool call span');
    assert.equal(call.parentSpanId, request.spanId);
    assert.equal(call.attributes['centralmcp.entrypoint'], 'invoke_read_tool');
    assert.equal(call.attributes['centralmcp.backend'], 'web');
    assert.equal(call.attributes['gen_ai.tool.name'], 'echo_trace');
    assert.equal(call.attributes['centralmcp.status'], 'ok');
    const client = only(spans, (s) => s.kind === CLIENT, 'one backend call span');
    assert.equal(client.spanId, hop[2], 'the span the backend was told of');
    assert.equal(client.parentSpanId, call.spanId);
    assert.equal(client.name, 'tools/call echo_trace');
    assert.equal(client.attributes['network.transport'], 'tcp');
    assert.equal(client.attributes['server.address'], '127.0.0.1');
    // Argument values are never in a span.
    assert.ok(!JSON.stringify(receiver.spans).includes(SECRET));
  });

  test('a stdio backend gets the trace context in params._meta', async () => {
    const caller = clientContext();
    const { body } = await post(
      url,
      'tools/call',
      { name: 'invoke_read_tool', arguments: { name: 'echo_trace', server: 'local' } },
      { traceparent: caller.traceparent },
    );
    const seen = seenByBackend(body.result);
    assert.equal(seen.traceparent, null, 'stdio has no headers');
    assert.match(seen.meta?.traceparent ?? '', new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === caller.traceId && s.kind === CLIENT), 'the stdio call span');
    const client = only(spansOf(receiver, caller.traceId), (s) => s.kind === CLIENT, 'one backend call span');
    assert.equal(client.attributes['network.transport'], 'pipe');
    assert.equal(seen.meta?.traceparent, `00-${caller.traceId}-${client.spanId}-01`);
  });

  test('batch entries are children of their batch; a failed entry says why, and its log line carries its trace and span', async () => {
    const caller = clientContext();
    const calls = [
      { name: 'echo_trace', server: 'web' },
      { name: 'broken_read', server: 'local' },
    ];
    const { body } = await post(url, 'tools/call', { name: 'invoke_read_tool_batch', arguments: { calls } }, { traceparent: caller.traceparent });
    assert.equal(body.result.structuredContent.counts?.failed, 1, JSON.stringify(body.result.structuredContent));
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === caller.traceId).length >= 6, 'the batch spans');
    const spans = spansOf(receiver, caller.traceId);
    const request = only(spans, (s) => s.kind === SERVER, 'one request span');
    const batch = only(spans, (s) => s.name === 'invoke_read_tool_batch', 'one batch span');
    assert.equal(batch.parentSpanId, request.spanId);
    assert.deepEqual([batch.attributes['centralmcp.batch.size'], batch.attributes['centralmcp.batch.failed']], [2, 1]);
    const entries = spans
      .filter((s) => s.name === 'batch')
      .sort((a, b) => Number(a.attributes['centralmcp.batch.index']) - Number(b.attributes['centralmcp.batch.index']));
    assert.equal(entries.length, 2);
    for (const entry of entries) assert.equal(entry.parentSpanId, batch.spanId);
    assert.deepEqual([entries[0].attributes['centralmcp.status'], entries[0].status], ['ok', 0]);
    assert.deepEqual([entries[1].attributes['centralmcp.status'], entries[1].attributes['error.type'], entries[1].status], ['error', 'backend_failed', 2]);
    const failedCall = only(spans, (s) => s.kind === CLIENT && s.parentSpanId === entries[1].spanId, "the failed entry's backend call");
    assert.equal(failedCall.attributes['error.type'], 'tool_error');
    const line = router.logs.find((l) => msgOf(l) === 'backend call failed' && l.tool === 'broken_read');
    assert.ok(line, 'a warn line for the failed call');
    assert.deepEqual([line.traceId, line.spanId], [caller.traceId, entries[1].spanId]);
  });

  test('find_tool has its span with the hit count, never the query', async () => {
    const caller = clientContext();
    const { body } = await post(url, 'tools/call', { name: 'find_tool', arguments: { query: `echo trace ${SECRET}` } }, { traceparent: caller.traceparent });
    assert.equal(body.result.isError, false);
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === caller.traceId && s.name === 'find_tool'), 'the find_tool span');
    const spans = spansOf(receiver, caller.traceId);
    const find = only(spans, (s) => s.name === 'find_tool', 'one find_tool span');
    assert.equal(find.parentSpanId, only(spans, (s) => s.kind === SERVER, 'one request span').spanId);
    assert.equal(find.attributes['centralmcp.find_tool.hits'], body.result.structuredContent.hits?.length);
    assert.ok(!JSON.stringify(receiver.spans).includes(SECRET));
  });

  test('a backend call answered input_required records each round as an event of its span', async () => {
    const caller = clientContext();
    const { body } = await post(
      url,
      'tools/call',
      { name: 'invoke_read_tool', arguments: { name: 'mr_busy', server: 'mr', arguments: { city: 'Oslo' } } },
      { traceparent: caller.traceparent },
    );
    assert.equal(body.result.isError, false, JSON.stringify(body));
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === caller.traceId && s.kind === CLIENT), 'the backend call span');
    const client = only(spansOf(receiver, caller.traceId), (s) => s.kind === CLIENT, 'one backend call span');
    assert.deepEqual(client.events, [{ name: 'mcp.input_required', attributes: { 'centralmcp.round': 1 } }]);
    assert.equal(client.status, 0);
  });

  test('a trace context in params._meta is the parent; the differing HTTP one becomes a link', async () => {
    const inMeta = clientContext();
    const inHeader = clientContext();
    await post(url, 'tools/list', { _meta: { traceparent: inMeta.traceparent } }, { traceparent: inHeader.traceparent });
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === inMeta.traceId), 'the tools/list span');
    const request = only(spansOf(receiver, inMeta.traceId), (s) => s.kind === SERVER, 'one request span');
    assert.equal(request.name, 'tools/list');
    assert.equal(request.parentSpanId, inMeta.spanId);
    assert.deepEqual(request.links, [{ traceId: inHeader.traceId, spanId: inHeader.spanId }]);
  });

  test("a backend added by a reload is named by its address in its calls' spans", async () => {
    const added = await startEchoBackend();
    try {
      writeFileSync(router.configFile, routerYaml(backend.url, mrtr.url, added.url));
      router.child.kill('SIGHUP');
      await waitFor(() => router.logs.some((l) => msgOf(l) === 'backend up' && l.backend === 'added'), 60_000, 'the added backend up');
      const caller = clientContext();
      const { body } = await post(
        url,
        'tools/call',
        { name: 'invoke_read_tool', arguments: { name: 'echo_trace', server: 'added' } },
        { traceparent: caller.traceparent },
      );
      assert.equal(body.result.isError, false, JSON.stringify(body));
      await receiver.waitFor((spans) => spans.some((s) => s.traceId === caller.traceId && s.kind === CLIENT), 'the backend call span');
      const client = only(spansOf(receiver, caller.traceId), (s) => s.kind === CLIENT, 'one backend call span');
      assert.equal(client.attributes['centralmcp.backend'], 'added');
      assert.deepEqual(
        [client.attributes['network.transport'], client.attributes['server.address'], client.attributes['server.port']],
        ['tcp', '127.0.0.1', Number(new URL(added.url).port)],
      );
    } finally {
      added.child.kill('SIGKILL');
    }
  });
});

describe('traces exported over OTLP/HTTP JSON', () => {
  test('http/json sends JSON the receiver reads, with the same spans', async () => {
    const receiver = await startOtlpReceiver();
    const backend = await startEchoBackend();
    const router = spawnRouter(routerYaml(backend.url), {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const url = await router.listening();
      const caller = clientContext();
      const { status } = await post(url, 'ping', {}, { traceparent: caller.traceparent });
      assert.equal(status, 200);
      await receiver.waitFor((spans) => spans.some((s) => s.traceId === caller.traceId), 'the ping span');
      const request = only(spansOf(receiver, caller.traceId), (s) => s.kind === SERVER, 'one request span');
      assert.deepEqual([request.name, request.parentSpanId, request.service], ['ping', caller.spanId, 'centralmcp-router']);
      assert.ok(receiver.contentTypes.every((t) => t.startsWith('application/json')));
    } finally {
      router.kill();
      backend.child.kill('SIGKILL');
      await receiver.close();
    }
  });
});

describe('an OTLP endpoint that refuses or is down', () => {
  test('each kind of export problem is logged once, and every call is still answered', async () => {
    // A receiver that refuses every export (HTTP 400: the exporter does not retry it), counting them.
    let attempts = 0;
    const refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        attempts++;
        res.writeHead(400, { 'content-type': 'text/plain' }).end('refused');
      });
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const router = spawnRouter(['backends:', ...stdioBackendYaml('local', ECHO_SERVER, ['--stdio'], { era: 'legacy' })].join('\n'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    });
    const problems = () => router.logs.filter((l) => msgOf(l) === 'trace export problem');
    try {
      const url = await router.listening();
      // The batch processor exports one batch at a time: once the fourth export arrives, the first
      // three have failed and been reported.
      for (let i = 1; i <= 4; i++) {
        assert.equal((await post(url, 'ping', {})).status, 200);
        await waitFor(() => attempts >= i, 30_000, `export ${i}`);
      }
      assert.deepEqual(
        problems().map((l) => [l.level, l.kind, l.detail]),
        [['error', 'HTTP 400', 'Bad Request']],
      );
      // Then the endpoint goes away: a new kind of problem, logged once too; calls are still answered.
      refusing.closeAllConnections();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
      assert.equal((await post(url, 'ping', {})).status, 200);
      await waitFor(() => problems().length === 2, 60_000, 'the endpoint down, reported');
      assert.equal(problems()[1].kind, 'ECONNREFUSED');
      assert.ok(!JSON.stringify(problems()).includes('    at '), 'no stack in the log');
      const { body } = await post(url, 'tools/call', { name: 'invoke_read_tool', arguments: { name: 'echo_trace', server: 'local' } });
      assert.equal(body.result.isError, false, JSON.stringify(body));
      assert.equal(problems().length, 2);
    } finally {
      router.kill();
      refusing.close();
    }
  });
});

describe('tracing off', () => {
  test('without an endpoint nothing is traced and nothing is passed on to backends', async () => {
    const backend = await startEchoBackend();
    const router = spawnRouter(routerYaml(backend.url));
    try {
      const url = await router.listening();
      await until(async () => (await fetch(url.replace(/\/mcp$/, '/health/ready'))).status === 200, 60_000, 'both backends up');
      const caller = clientContext();
      const { body } = await post(
        url,
        'tools/call',
        { name: 'invoke_read_tool', arguments: { name: 'echo_trace', server: 'web' } },
        { traceparent: caller.traceparent },
      );
      assert.deepEqual(seenByBackend(body.result), { traceparent: null, tracestate: null, meta: null });
      assert.ok(!router.logs.some((l) => msgOf(l) === 'exporting traces'));
      assert.ok(!router.logs.some((l) => 'traceId' in l));
    } finally {
      router.kill();
      backend.child.kill('SIGKILL');
    }
  });
});
