import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { faultStdioBackend, RawMcpClient } from './support/fault-backends';
import { startRouter, testConfig, type BatchAnswer, type BatchItem, type RunningRouter, type SingleAnswer, type ToolResult } from './support/router';

/**
 * Fuzzing: whatever reaches /mcp (JSON-RPC shapes, 10,000-level nesting, 400-digit ids,
 * unicode, `__proto__` and `constructor` keys, batch entries of random shapes and sizes), the
 * router never answers 5xx, never dies, never echoes an argument value, and answers a valid id as
 * it was sent.
 *
 * Seeded and bounded for CI (FUZZ_SEED, default 5; FUZZ_RUNS scales every property's run count,
 * default 1: about 12 s here); `npm run fuzz` runs it 20× longer with a fresh seed, printed in the
 * coverage line so a failure can be replayed with FUZZ_SEED.
 */

const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 5);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));
const settings = (n: number) => ({ seed: SEED, numRuns: runs(n), endOnFailure: true });

/** Put in argument values only: finding it anywhere in an answer means a value was echoed. */
const CANARY = 'cAnArY-7f3e9b';
const CALL_STATUSES = new Set(['ok', 'error', 'blocked', 'unknown_tool', 'invalid_cursor', 'invalid_call']);
const BATCH_REJECTIONS = new Set(['invalid_batch', 'too_many_calls', 'duplicate_id']);
const KNOWN_TOOLS = ['fast', 'fail', 'stats', 'purge_cache', 'github_get_issue', 'jira_list_issues', 'github_delete_issue'];

// --- arbitraries ------------------------------------------------------------------------------

const unicode = fc.string({ unit: 'binary', maxLength: 40 });
const anyString = fc.oneof(fc.string({ maxLength: 40 }), unicode, fc.constantFrom('', ' ', '\u0000', '\ud800', '💥'.repeat(30)));
const specialKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf');
const key = fc.oneof(anyString, specialKey);

/** A value that holds the canary somewhere. */
const canaryValue = fc.oneof(
  fc.constant(CANARY),
  anyString.map((s) => `${s}${CANARY}${s}`),
  fc.constant(CANARY.repeat(400)),
  fc.constant({ secret: CANARY }),
  fc.constant([CANARY, { nested: [CANARY] }]),
);

const leaf = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), anyString, canaryValue);
const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));

/** `arb` a quarter of the time, else absent. */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Nesting from 1 to 10,000 levels of objects or arrays (often near the 8-level rule), canary at the bottom. */
const depth = fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 10_000 }), fc.constant(10_000));
const deepText = fc
  .record({ depth, arrays: fc.boolean() })
  .map(({ depth, arrays }) => (arrays ? `${'['.repeat(depth)}"${CANARY}"${']'.repeat(depth)}` : `${'{"d":'.repeat(depth)}"${CANARY}"${'}'.repeat(depth)}`));

/** Argument objects as text: always holding the canary, sometimes deep or with prototype keys. */
const argumentsText = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(key, jsonish, { maxKeys: 6 }).map((o) => JSON.stringify({ ...o, secret: CANARY })) },
  { weight: 2, arbitrary: deepText.map((deep) => `{"secret":"${CANARY}","deep":${deep}}`) },
  { weight: 1, arbitrary: fc.constant(`{"__proto__":{"polluted":"${CANARY}"},"constructor":{"prototype":{"polluted":"${CANARY}"}},"secret":"${CANARY}"}`) },
  { weight: 1, arbitrary: fc.integer({ min: 19_000, max: 40_000 }).map((n) => JSON.stringify({ big: CANARY + 'x'.repeat(n) })) },
);

const toolName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_TOOLS) },
  { weight: 1, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constant('x'.repeat(201)) },
);
const serverName = sometimes(fc.oneof(fc.constantFrom('fz', 'fz', 'nope', 'FZ', ' fz'), anyString));

/** A valid id the router must answer as sent, or an invalid one it must answer with null. */
const validId = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  fc.string({ unit: 'binary', maxLength: 256 }),
  fc.stringMatching(/^[0-9]{1,200}$/),
);
const idText = fc.oneof(
  { weight: 5, arbitrary: validId.map((id) => JSON.stringify(id)) },
  { weight: 1, arbitrary: fc.constantFrom('9'.repeat(400), '-' + '1'.repeat(400), '1.5', '1e400', 'null', 'true', '{}', '[]', `"${'7'.repeat(400)}"`, '-0') },
);

/** A `calls` entry of any shape; often a plausible one, so batches get past the whole-batch checks. */
const entryText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ name: toolName, server: serverName, args: argumentsText })
      .map(
        ({ name, server, args }) => `{"name":${JSON.stringify(name)}${server === undefined ? '' : `,"server":${JSON.stringify(server)}`},"arguments":${args}}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ name: toolName, id: fc.oneof(fc.constantFrom('0', '1', '2', 'a'), anyString, fc.integer().map(String)) })
      .map(({ name, id }) => JSON.stringify({ name, id, arguments: { secret: CANARY } })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ name: toolName, cursor: fc.oneof(anyString, fc.constant('eyJ2IjoxfQ.c2ln')), extra: jsonish })
      .map((e) => JSON.stringify({ ...e, arguments: { secret: CANARY } })),
  },
  { weight: 1, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? 'null') },
);

const rpc = (id: string, method: string, params: string) => `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${params}}`;

// --- checks -----------------------------------------------------------------------------------

interface Sent {
  id?: unknown;
  hasValidId: boolean;
  isRequest: boolean;
  /** Deeper than the router parses at all: refused whole, id unknown (JSON-RPC: then null). */
  tooDeep: boolean;
}

/**
 * The router refuses a body nested deeper than this before parsing it (src/mcp/domain/jsonrpc.ts
 * MAX_JSON_DEPTH), so it cannot know the id: JSON-RPC 2.0 §5 says answer null then.
 */
const ROUTER_MAX_JSON_DEPTH = 64;

/** Nesting depth of a parsed JSON value (the top object or array is 1), without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, d);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** What the sent body says about its id, parsed as the router parses it. */
function sentOf(body: string): Sent {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { hasValidId: false, isRequest: false, tooDeep: false };
  }
  const tooDeep = depthOf(message) > ROUTER_MAX_JSON_DEPTH;
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return { hasValidId: false, isRequest: false, tooDeep };
  const { id, method } = message as { id?: unknown; method?: unknown };
  const hasValidId = (typeof id === 'string' && id.length <= 256) || (typeof id === 'number' && Number.isSafeInteger(id));
  return { id, hasValidId, isRequest: typeof method === 'string', tooDeep };
}

/** A JSON-RPC answer as the fuzzer reads it: any part may be missing or of another type. */
interface RpcAnswer {
  jsonrpc?: unknown;
  id?: unknown;
  error?: { code?: unknown };
  result?: ToolResult;
}

/** Never 5xx; a JSON answer; a valid id answered as sent; the canary nowhere. */
function checkReply(body: string, reply: { status: number; body: string }): RpcAnswer | undefined {
  assert.ok(reply.status < 500, `HTTP ${reply.status} for ${body.slice(0, 200)}`);
  saw(`http:${reply.status}`);
  assert.ok(!reply.body.includes(CANARY), `an argument value came back: ${reply.body.slice(0, 300)}`);
  if (reply.status === 202) {
    assert.equal(reply.body, '');
    return undefined;
  }
  const answer = JSON.parse(reply.body) as RpcAnswer;
  assert.equal(answer.jsonrpc, '2.0');
  const sent = sentOf(body);
  if (sent.tooDeep) {
    saw('refused:too_deep');
    assert.equal(reply.status, 400);
    assert.equal(answer.error?.code, -32600);
    assert.equal(answer.id, null);
  } else if (sent.hasValidId && sent.isRequest) {
    // -0 serializes as 0: the same JSON-RPC id by value.
    assert.ok(answer.id === sent.id || (answer.id === 0 && Object.is(sent.id, -0)), `id ${JSON.stringify(sent.id)} answered as ${JSON.stringify(answer.id)}`);
  } else if (!sent.hasValidId) {
    assert.equal(answer.id, null, 'an invalid id is answered as null');
  }
  return answer;
}

/** What the fuzzer reached, so a generator that stops reaching the backend fails loudly. */
const seen = new Map<string, number>();
function saw(what: string): void {
  seen.set(what, (seen.get(what) ?? 0) + 1);
}

function checkItem(item: Pick<BatchItem, 'status' | 'result' | 'error' | 'result_truncated'>): void {
  assert.ok(CALL_STATUSES.has(item.status), `status ${item.status}`);
  saw(`status:${item.status}`);
  assert.ok((item.result === undefined) !== (item.error === undefined) || item.result_truncated === true, 'exactly one of result and error');
  if (item.error !== undefined) assert.ok(typeof item.error === 'string' && item.error.length <= 500);
}

/** A single call's answer: a batch item's fields, but a failure's error is `{code, message}`. */
function checkSingle(single: SingleAnswer): void {
  const { error, ...rest } = single;
  checkItem(error === undefined ? rest : { ...rest, error: error.message });
  if (error !== undefined) assert.equal(typeof error.code, 'string');
}

/** What a model reads first: a text block that parses to the answer without its result. */
function checkFirstBlock(result: ToolResult): void {
  const { result: _result, ...head } = result.structuredContent as Record<string, unknown>;
  const first = (result.content as { type: string; text: string }[])[0];
  assert.equal(first.type, 'text');
  if (Array.isArray(head.results)) head.results = head.results.map(({ result: _r, ...item }: Record<string, unknown>) => item);
  assert.deepEqual(JSON.parse(first.text), head);
}

describe('fuzzing /mcp', () => {
  let router: RunningRouter;
  let client: RawMcpClient;
  let pingId = 0;

  const alive = async () => {
    const id = `ping-${++pingId}`;
    const reply = await client.post(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { jsonrpc: '2.0', id, result: {} });
  };

  before(async () => {
    router = await startRouter(testConfig([faultStdioBackend('fz', { tools: 40 }, { timeoutMs: 2000 })]));
    client = new RawMcpClient(router.url);
  });
  after(async () => {
    client?.close();
    await router?.close();
  });

  test('raw bodies: JSON-RPC shapes, garbage, deep nesting, huge ids, prototype keys', async () => {
    const method = fc.oneof(
      fc.constantFrom('ping', 'initialize', 'tools/list', 'tools/call', 'notifications/initialized', 'resources/list', '__proto__', 'constructor'),
      anyString,
    );
    const params = fc.oneof(
      argumentsText,
      jsonish.map((v) => JSON.stringify(v) ?? 'null'),
      fc.constant('[]'),
      fc.constant('"x"'),
    );
    const body = fc.oneof(
      anyString,
      jsonish.map((v) => JSON.stringify(v) ?? ''),
      fc.record({ id: idText, method, params }).map(({ id, method: m, params: p }) => rpc(id, m, p)),
      fc.record({ id: idText, method }).map(({ id, method: m }) => `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(m)}}`),
      fc
        .record({ id: idText, jsonrpc: jsonish, extra: key })
        .map(({ id, jsonrpc, extra }) => `{"jsonrpc":${JSON.stringify(jsonrpc) ?? 'null'},"id":${id},"method":"ping",${JSON.stringify(extra)}:1}`),
      fc.record({ id: idText, result: jsonish }).map(({ id, result }) => `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(result) ?? 'null'}}`),
      deepText.map((deep) => rpc('1', 'ping', `{"deep":${deep}}`)),
      deepText,
      fc.constant(`{"__proto__":{"jsonrpc":"2.0","id":1,"method":"ping"}}`),
      fc.constant(`{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`),
      fc.array(fc.constant('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { minLength: 1, maxLength: 30 }).map((a) => `[${a.join(',')}]`),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        checkReply(text, await client.post(text));
      }),
      settings(3000),
    );
    await alive();
  });

  test('odd content types and headers are refused with 4xx, never 5xx', async () => {
    const contentType = fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/JSON',
        'application/json;;',
        '',
      ),
      fc.string({ maxLength: 30 }).filter((t) => /^[\x21-\x7e ]*$/.test(t)),
    );
    const accept = fc.constantFrom('application/json, text/event-stream', 'text/event-stream', 'application/json', '*/*', 'text/html');
    await fc.assert(
      fc.asyncProperty(contentType, accept, fc.oneof(anyString, fc.constant('{"jsonrpc":"2.0","id":1,"method":"ping"}')), async (type, acc, body) => {
        const reply = await client.post(body, { 'content-type': type, accept: acc });
        assert.ok(reply.status < 500, `HTTP ${reply.status} for content-type ${JSON.stringify(type)}`);
        saw(`http:${reply.status}`);
      }),
      settings(300),
    );
    await alive();
  });

  test('invoke_read_tool with fuzzed names, servers, arguments and cursors', async () => {
    const call = fc.record({ id: idText, name: toolName, server: serverName, args: argumentsText, cursor: sometimes(anyString), extra: sometimes(key) });
    await fc.assert(
      fc.asyncProperty(call, async ({ id, name, server, args, cursor, extra }) => {
        const fields = [
          `"name":${JSON.stringify(name)}`,
          ...(server === undefined ? [] : [`"server":${JSON.stringify(server)}`]),
          `"arguments":${args}`,
          ...(cursor === undefined ? [] : [`"cursor":${JSON.stringify(cursor)}`]),
          ...(extra === undefined ? [] : [`${JSON.stringify(extra)}:1`]),
        ];
        const text = rpc(id, 'tools/call', `{"name":"invoke_read_tool","arguments":{${fields.join(',')}}}`);
        const answer = checkReply(text, await client.post(text));
        if (!answer?.result) return; // an invalid id or envelope: answered as an error above
        const single = answer.result.structuredContent as unknown as SingleAnswer;
        checkSingle(single);
        checkFirstBlock(answer.result);
        assert.equal(single.ok, single.status === 'ok');
        assert.equal(answer.result.isError, single.status !== 'ok');
      }),
      settings(2000),
    );
    await alive();
  });

  test('invoke_read_tool_batch with entries of random shapes and sizes', async () => {
    const batch = fc.record({
      id: idText,
      calls: fc.oneof(
        { weight: 5, arbitrary: fc.array(entryText, { minLength: 0, maxLength: 25 }).map((e) => `[${e.join(',')}]`) },
        { weight: 1, arbitrary: fc.array(entryText, { minLength: 24, maxLength: 30 }).map((e) => `[${e.join(',')}]`) },
        { weight: 1, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? 'null') },
      ),
      extra: sometimes(key),
    });
    await fc.assert(
      fc.asyncProperty(batch, async ({ id, calls, extra }) => {
        const text = rpc(
          id,
          'tools/call',
          `{"name":"invoke_read_tool_batch","arguments":{"calls":${calls}${extra === undefined ? '' : `,${JSON.stringify(extra)}:1`}}}`,
        );
        const answer = checkReply(text, await client.post(text));
        if (!answer?.result) return;
        const data = answer.result.structuredContent as unknown as BatchAnswer;
        const sentCalls = JSON.parse(calls) as unknown;
        if (data.results === undefined) {
          saw(`batch:${data.error?.code}`);
          assert.equal(data.ok, false);
          assert.ok(BATCH_REJECTIONS.has(data.error?.code ?? ''), `rejection code ${data.error?.code}`);
          assert.equal(answer.result.isError, true);
          checkFirstBlock(answer.result);
          return;
        }
        // A dispatched batch is never a tool error, whatever its entries did (architecture §5).
        assert.equal(answer.result.isError, false);
        checkFirstBlock(answer.result);
        assert.ok(Array.isArray(sentCalls));
        assert.equal(data.results.length, sentCalls.length, 'one result per call');
        data.results.forEach((item, i) => {
          assert.equal(item.index, i, 'results in call order');
          checkItem(item);
        });
        assert.equal(new Set(data.results.map((r) => r.id)).size, sentCalls.length, 'ids unique');
        const failed = data.results.filter((r) => r.status !== 'ok').length;
        assert.deepEqual(data.counts, { total: sentCalls.length, succeeded: sentCalls.length - failed, failed });
        assert.equal(data.ok, failed === 0);
        saw('batch:answered');
      }),
      settings(800),
    );
    await alive();
  });

  test('find_tool with fuzzed arguments', async () => {
    const args = fc.oneof(
      fc
        .record({ query: canaryValue, top_k: fc.oneof(fc.integer(), fc.double(), anyString), server: serverName, include_schema: jsonish })
        .map((a) => JSON.stringify(a)),
      argumentsText,
    );
    await fc.assert(
      fc.asyncProperty(idText, args, async (id, a) => {
        const text = rpc(id, 'tools/call', `{"name":"find_tool","arguments":${a}}`);
        checkReply(text, await client.post(text));
      }),
      settings(800),
    );
    await alive();
  });

  test('the fuzzer reached every outcome', () => {
    const report = [...seen]
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    process.stdout.write(`# fuzz coverage (seed ${SEED}): ${report}\n`);
    for (const what of [
      'refused:too_deep',
      'http:200',
      'http:202',
      'http:400',
      'status:ok',
      'status:error',
      'status:blocked',
      'status:unknown_tool',
      'status:invalid_call',
      'status:invalid_cursor',
      'batch:answered',
      'batch:invalid_batch',
      'batch:too_many_calls',
      'batch:duplicate_id',
    ]) {
      assert.ok((seen.get(what) ?? 0) > 0, `never reached ${what}: ${report}`);
    }
  });

  test('nothing leaked onto Object.prototype, and the router still answers', async () => {
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    await alive();
    const answer = await client.read('fast', 'fz');
    assert.equal(answer.status, 'ok');
  });
});
