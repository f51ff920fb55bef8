import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SERVER_ENTRIES, stdioBackend } from './support/backend-servers';
import { deltas, scrapeMetrics } from './support/metrics';
import {
  callTool,
  everythingBackend,
  filesBackend,
  memoryBackend,
  rawToolCall,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type BatchAnswer,
  type RunningRouter,
} from './support/router';

const BATCH = 'invoke_read_tool_batch';

describe('invoke_read_tool_batch over real backends', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.txt'), 'alpha');
  writeFileSync(join(dir, 'big.txt'), 'line of text with "quotes" and ✓\n'.repeat(10_000));
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(dir), memoryBackend(join(tempDir(), 'm.jsonl')), everythingBackend(), stdioBackend('fixture', SERVER_ENTRIES.fixture, [])], {
        budgets: { responseMaxBytes: 200_000, responseMaxItems: 200, batchResponseMaxBytes: 65_536 },
      }),
    );
    client = await router.connect();
  });
  after(async () => router.close());

  const batch = (calls: unknown) => callTool(client, BATCH, { calls });

  test('is published, annotated read-only', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === BATCH);
    assert.equal(tool?.annotations?.readOnlyHint, true);
  });

  test('answers one result per call, in order, with every status, and never writes', async () => {
    const target = join(dir, 'written.txt');
    const before = await scrapeMetrics(router);
    const result = await client.callTool({
      name: BATCH,
      arguments: {
        calls: [
          { id: 'alpha', name: 'read_text_file', server: 'files', arguments: { path: join(dir, 'a.txt') } },
          { name: 'write_file', arguments: { path: target, content: 'no' } },
          { name: 'no_such_tool' },
          { name: 'read_graph', server: 'memory', surprise: true },
          { name: 'read_text_file', server: 'files', arguments: { path: join(dir, 'a.txt') }, cursor: 'forged' },
          { name: 'read_text_file', server: 'files', arguments: { path: join(dir, 'missing.txt') } },
          { id: 'sum', name: 'get-sum', arguments: { a: 1, b: 2 } },
          { name: 'read_graph' },
        ],
      },
    });
    // The batch was dispatched: its failures are data, not a raised exception (architecture §5).
    assert.equal(result.isError, false);
    const data = result.structuredContent as BatchAnswer;
    assert.equal(data.ok, false);
    // A model reads the summary first, then each entry's blocks under its header.
    const { head, blocks } = readAsModel<BatchAnswer>(result as never);
    assert.deepEqual(head, { ...data, results: data.results.map(({ result: _r, ...rest }) => rest) });
    const headers = blocks.filter((b) => /^── entry /.test(b.text ?? '')).map((b) => b.text);
    // A failed entry's header carries its code and message, where the model reads that entry.
    const errorOf = (i: number) => data.results[i].error ?? '';
    assert.deepEqual(headers, [
      '── entry 0, id "alpha": ok ──',
      `── entry 1, id "1": blocked: ${errorOf(1)} ──`,
      `── entry 2, id "2": unknown_tool: ${errorOf(2)} ──`,
      `── entry 3, id "3": invalid_call: ${errorOf(3)} ──`,
      `── entry 4, id "4": invalid_cursor: ${errorOf(4)} ──`,
      `── entry 5, id "5": error (backend_failed): ${errorOf(5)} ──`,
      '── entry 6, id "sum": ok ──',
      '── entry 7, id "7": ok ──',
    ]);
    assert.match(headers[5] ?? '', /^── entry 5, id "5": error \(backend_failed\): backend error: ENOENT: no such file or directory/);
    assert.match(headers[1] ?? '', /not read-only/);
    assert.deepEqual(blocks.slice(0, 2), [
      { type: 'text', text: '── entry 0, id "alpha": ok ──' },
      { type: 'text', text: 'alpha' },
    ]);
    assert.deepEqual(
      data.results.map((r) => [r.index, r.id, r.status]),
      [
        [0, 'alpha', 'ok'],
        [1, '1', 'blocked'],
        [2, '2', 'unknown_tool'],
        [3, '3', 'invalid_call'],
        [4, '4', 'invalid_cursor'],
        [5, '5', 'error'],
        [6, 'sum', 'ok'],
        [7, '7', 'ok'],
      ],
    );
    assert.deepEqual(data.counts, { total: 8, succeeded: 3, failed: 5 });
    assert.deepEqual(data.failed_ids, ['1', '2', '3', '4', '5']);
    assert.deepEqual(data.failed_indexes, [1, 2, 3, 4, 5]);
    assert.equal(data.truncated, false);
    for (const r of data.results) assert.ok((r.result === undefined) !== (r.error === undefined), 'exactly one of result and error');
    assert.ok(JSON.stringify(data.results[0].result).includes('alpha'));
    assert.ok(JSON.stringify(data.results[6].result).includes('3'));
    assert.equal(existsSync(target), false);
    // Defect 12: every entry is counted by its backend and status, exactly once.
    const after = await scrapeMetrics(router);
    assert.deepEqual(deltas(before, after, 'centralmcp_router_calls_total'), {
      'centralmcp_router_calls_total{entrypoint="batch",backend="files",status="ok"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="files",status="blocked"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="none",status="unknown_tool"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="none",status="invalid_call"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="files",status="invalid_cursor"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="files",status="error"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="everything",status="ok"}': 1,
      'centralmcp_router_calls_total{entrypoint="batch",backend="memory",status="ok"}': 1,
    });
    assert.deepEqual(deltas(before, after, 'centralmcp_router_batches_total'), { 'centralmcp_router_batches_total{outcome="partial"}': 1 });
    assert.deepEqual(deltas(before, after, 'centralmcp_router_cursor_rejections_total'), {
      'centralmcp_router_cursor_rejections_total{reason="malformed"}': 1,
    });
    const backendCalls = deltas(before, after, 'centralmcp_router_backend_call_duration_seconds_count');
    assert.deepEqual(backendCalls, {
      'centralmcp_router_backend_call_duration_seconds_count{backend="files",status="ok"}': 1,
      'centralmcp_router_backend_call_duration_seconds_count{backend="files",status="error"}': 1,
      'centralmcp_router_backend_call_duration_seconds_count{backend="everything",status="ok"}': 1,
      'centralmcp_router_backend_call_duration_seconds_count{backend="memory",status="ok"}': 1,
    });
  });

  test('whole-batch rejections are tool errors with a code, before any dispatch', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'invalid_batch'],
      ['read_graph', 'invalid_batch'],
      [[], 'invalid_batch'],
      [Array.from({ length: 26 }, () => ({ name: 'read_graph' })), 'too_many_calls'],
      [[{ name: 'read_graph' }, { id: '0', name: 'read_graph' }], 'duplicate_id'],
      [
        [
          { id: 'x', name: 'read_graph' },
          { id: 'x', name: 'read_graph' },
        ],
        'duplicate_id',
      ],
    ];
    for (const [calls, code] of cases) {
      const { isError, data } = await callTool(client, BATCH, calls === undefined ? {} : { calls });
      assert.equal(isError, true, code);
      assert.equal(data.ok, false);
      assert.equal(data.status, 'invalid_call');
      assert.equal(data.error!.code, code);
      assert.equal(typeof data.error!.message, 'string');
      assert.equal(data.results, undefined);
    }
  });

  test('defect 2: a result holding an `error: null` key is a success; isError results are errors', async () => {
    const { isError, data } = await batch([{ name: 'structured' }, { name: 'failing' }]);
    assert.equal(isError, false);
    assert.equal(data.results[0].status, 'ok');
    assert.deepEqual(data.results[0].result?.structuredContent, { error: null, value: 42 });
    assert.equal(data.results[1].status, 'error');
    assert.match(data.results[1].error ?? '', /failed on purpose/);
    assert.deepEqual(data.failed_ids, ['1']);
  });

  test('defect 9: malformed entries are invalid_call, the others run, and no value is echoed', async () => {
    const canary = 'canary-5ecret';
    let deep: Record<string, unknown> = { v: canary };
    for (let i = 0; i < 9; i++) deep = { d: deep };
    const calls = [
      { name: 'read_graph', extra: canary },
      { name: 42 },
      { id: canary.repeat(10), name: 'read_graph' },
      { name: canary.repeat(20) + 'x' },
      { name: 'read_text_file', arguments: { path: canary.repeat(2000) } },
      { name: 'read_graph', arguments: deep },
      { name: 'read_graph', arguments: [canary] },
      canary,
      { name: 'read_graph' },
    ];
    const { data } = await batch(calls);
    assert.deepEqual(
      data.results.map((r) => r.status),
      ['invalid_call', 'invalid_call', 'invalid_call', 'invalid_call', 'invalid_call', 'invalid_call', 'invalid_call', 'invalid_call', 'ok'],
    );
    const every = await batch(calls.slice(0, 8));
    assert.equal(every.isError, false, 'a dispatched batch is no tool error even when every entry failed');
    assert.deepEqual(every.data.counts, { total: 8, succeeded: 0, failed: 8 });
    assert.equal(data.results[2].id, '2', 'a malformed id answers under its index');
    for (const r of data.results.slice(0, 8)) assert.ok(!String(r.error).includes(canary), r.error);
    const errors = data.results.map((r) => r.error ?? '').join('\n');
    assert.match(errors, /unknown field/);
    assert.match(errors, /1\.\.100/);
    assert.match(errors, /1\.\.200/);
    assert.match(errors, /20000 bytes/);
    assert.match(errors, /8 levels/);
  });

  test('the single call shares the argument bounds (defect 11)', async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 9; i++) deep = { d: deep };
    const { data } = await callTool(client, 'invoke_read_tool', { name: 'read_graph', arguments: deep });
    assert.equal(data.status, 'invalid_call');
  });

  test('25 big reads with ids of 100 characters stay within the batch budget, each resumable', async () => {
    const calls = Array.from({ length: 25 }, (_, i) => ({
      id: `${'i'.repeat(97)}${String(i).padStart(3, '0')}`,
      name: 'read_text_file',
      server: 'files',
      arguments: { path: join(dir, 'big.txt') },
    }));
    const { result, bytes } = await rawToolCall(router, BATCH, { calls });
    const data = result.structuredContent as unknown as BatchAnswer;
    // Measured on the serialized result as sent: structured content and content together.
    assert.ok(bytes <= 65_536, `${bytes} bytes`);
    const { head, blocks } = readAsModel<BatchAnswer>(result);
    assert.deepEqual(
      head.results.map((r) => r.next_cursor),
      data.results.map((r) => r.next_cursor),
    );
    assert.equal(blocks.length, 50, 'a header and one text block per entry');
    assert.equal(blocks[1].text, data.results[0].result?.structuredContent?.content);
    assert.equal(data.results.length, 25);
    assert.equal(data.truncated, true);
    assert.equal(data.ok, true);
    for (const r of data.results) {
      assert.equal(r.status, 'ok');
      assert.equal(r.truncated, true);
      assert.equal(typeof r.next_cursor, 'string');
    }
    // A cursor from the batch resumes the same read, in a batch or in a single call.
    const next = await callTool(client, 'invoke_read_tool', {
      name: 'read_text_file',
      server: 'files',
      arguments: { path: join(dir, 'big.txt') },
      cursor: data.results[3].next_cursor,
    });
    assert.equal(next.data.status, 'ok');
    const first = String(data.results[3].result?.structuredContent?.content);
    const second = String(next.data.result?.structuredContent?.content);
    assert.equal(first + second, 'line of text with "quotes" and ✓\n'.repeat(10_000).slice(0, first.length + second.length));
  });
});

describe('rate limits per backend call (architecture §7)', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.txt'), 'alpha');
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    router = await startRouter(
      testConfig([
        filesBackend(dir, { rateLimit: { ratePerSecond: 5, burst: 5 } }),
        filesBackend(dir, { name: 'free' }),
        // One token, and the next one a quarter of an hour later: however slowly the box runs the
        // batch, no token comes back during the test, so which entry gets it is fixed.
        filesBackend(dir, { name: 'strict', rateLimit: { ratePerSecond: 0.001, burst: 1, maxWaitMs: 100 } }),
      ]),
    );
    client = await router.connect();
  });
  after(async () => router.close());

  const reads = (server: string, n: number) => Array.from({ length: n }, () => ({ name: 'read_text_file', server, arguments: { path: join(dir, 'a.txt') } }));
  const waits = (samples: Map<string, number>, bucket: string) => ({
    count: samples.get(`centralmcp_router_rate_limit_wait_seconds_count{bucket="${bucket}"}`) ?? 0,
    sum: samples.get(`centralmcp_router_rate_limit_wait_seconds_sum{bucket="${bucket}"}`) ?? 0,
  });

  // Outcome and the limiter's own books instead of a stopwatch: every call past the burst was
  // granted a wait (the router's rate_limit_wait_seconds, what the token arithmetic decided) and
  // still succeeded; an unlimited backend's calls never wait for a token.
  test('10 reads on a backend limited to 5/s with a burst of 5: past the burst they wait for a token, and all succeed; unlimited ones never wait', async () => {
    const before = await scrapeMetrics(router);
    const limited = await callTool(client, BATCH, { calls: reads('files', 10) });
    assert.equal(limited.data.counts.succeeded, 10);
    const free = await callTool(client, BATCH, { calls: reads('free', 10) });
    assert.equal(free.data.counts.succeeded, 10);
    const after = await scrapeMetrics(router);
    const [was, now] = [waits(before, 'files'), waits(after, 'files')];
    assert.equal(now.count - was.count, 10, 'each limited call took its token through the limiter');
    assert.ok(now.sum > was.sum, 'calls past the burst were held for a token');
    assert.deepEqual(waits(after, 'free'), { count: 0, sum: 0 }, 'an unlimited backend has no bucket');
  });

  test('a wait longer than maxWaitMs fails that call with error instead of waiting; refusals cost no token', async () => {
    const { data } = await callTool(client, BATCH, {
      calls: [
        { name: 'write_file', server: 'strict', arguments: { path: join(dir, 'x'), content: 'x' } },
        { name: 'nope', server: 'strict' },
        ...reads('strict', 3),
      ],
    });
    // Blocked and unknown calls took no token, so the first read has the bucket's only one; the
    // next two would wait far past maxWaitMs for theirs, and fail rather than wait.
    assert.deepEqual(
      data.results.map((r) => r.status),
      ['blocked', 'unknown_tool', 'ok', 'error', 'error'],
    );
    assert.match(data.results[3].error ?? '', /rate limit: no token within 100 ms/);
    assert.match(data.results[4].error ?? '', /rate limit: no token within 100 ms/);
  });
});
