import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { SERVER_ENTRIES } from './support/backend-servers';
import {
  BUILD,
  everythingBackend,
  filesBackend,
  ROOT,
  startRouter,
  tempDir,
  testConfig,
  type RunningRouter,
  type FindAnswer,
  type SingleAnswer,
} from './support/router';

/**
 * The MCP Inspector's CLI mode (`mcp-inspector-cli --cli <url> --transport http --method …`, the
 * same program `npx @modelcontextprotocol/inspector --cli` runs) against the real router over
 * HTTP, with the filesystem server and server-everything behind it: it lists the published
 * tools, calls `find_tool` and `invoke_read_tool`, and lists and reads the backends' resources and
 * prompts. Its stdout is the JSON result of the method.
 */

const run = promisify(execFile);
const INSPECTOR_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'cli.js');

let router: RunningRouter;
let dir: string;

/** Runs one Inspector CLI method against the router; resolves with its stdout, parsed. */
function inspector<T>(method: string, ...options: string[]): Promise<T> {
  return inspectorAt<T>(router.url, method, ...options);
}

/**
 * Runs one Inspector CLI method against `target`: a URL (over HTTP), or the command line of a
 * server it starts over stdio (an array).
 */
async function inspectorAt<T>(target: string | string[], method: string, ...options: string[]): Promise<T> {
  const where = typeof target === 'string' ? [target, '--transport', 'http'] : target;
  const { stdout } = await run(process.execPath, [INSPECTOR_CLI, '--cli', ...where, '--method', method, ...options], {
    // The CLI looks for its own package.json at `../package.json` from the working directory (then
    // imports it relative to itself): inside the package, as `npx @modelcontextprotocol/inspector`
    // finds it, it names itself correctly.
    cwd: dirname(INSPECTOR_CLI),
    // The CLI starts its client with `node` from PATH: this Node, and nothing fetched.
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '', npm_config_offline: 'true' },
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}

interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent: unknown;
  isError?: boolean;
}

before(async () => {
  dir = tempDir('centralmcp-inspector-');
  writeFileSync(join(dir, 'notes.txt'), 'read through the Inspector');
  router = await startRouter(testConfig([filesBackend(dir, { env: {} }), everythingBackend()]));
});
after(async () => {
  await router?.close();
});

describe('the MCP Inspector CLI over HTTP', () => {
  test('tools/list shows the published tools', async () => {
    const listed = await inspector<{ tools: { name: string; inputSchema: unknown }[] }>('tools/list');
    assert.deepEqual(
      listed.tools.map((t) => t.name),
      ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
    );
  });

  test("tools/call find_tool ranks the filesystem server's reader", async () => {
    const result = await inspector<CallResult>('tools/call', '--tool-name', 'find_tool', '--tool-arg', 'query=read a text file');
    assert.notEqual(result.isError, true);
    const answer = result.structuredContent as FindAnswer;
    assert.ok(
      answer.hits.some((h) => h.name === 'read_text_file' && h.server === 'files'),
      JSON.stringify(answer.hits.map((h) => `${h.server}:${h.name}`)),
    );
  });

  test('tools/call invoke_read_tool reads a file; the model reads its text', async () => {
    const result = await inspector<CallResult>(
      'tools/call',
      '--tool-name',
      'invoke_read_tool',
      '--tool-arg',
      'name=read_text_file',
      'server=files',
      `arguments=${JSON.stringify({ path: join(dir, 'notes.txt') })}`,
    );
    const answer = result.structuredContent as SingleAnswer;
    assert.equal(answer.status, 'ok', JSON.stringify(answer));
    assert.ok(
      result.content.some((b) => b.type === 'text' && b.text === 'read through the Inspector'),
      JSON.stringify(result.content),
    );
  });

  test("resources/list and resources/read: server-everything's documents under namespaced URIs", async () => {
    const listed = await inspector<{ resources: { uri: string; name: string }[] }>('resources/list');
    const uri = 'centralmcp://everything/demo://resource/static/document/architecture.md';
    assert.ok(
      listed.resources.some((r) => r.uri === uri && r.name === 'everything__architecture.md'),
      JSON.stringify(listed.resources.slice(0, 10)),
    );
    const read = await inspector<{ contents: { uri: string; text?: string }[] }>('resources/read', '--uri', uri);
    assert.equal(read.contents[0].uri, uri);
    assert.ok((read.contents[0].text ?? '').length > 0);
  });

  test("prompts/list and prompts/get: server-everything's prompts under namespaced names", async () => {
    const listed = await inspector<{ prompts: { name: string }[] }>('prompts/list');
    const names = listed.prompts.map((p) => p.name);
    assert.ok(names.includes('everything__simple-prompt'), JSON.stringify(names));
    assert.ok(names.includes('everything__args-prompt'), JSON.stringify(names));
    const got = await inspector<{ messages: { role: string; content: { type: string; text?: string } }[] }>(
      'prompts/get',
      '--prompt-name',
      'everything__args-prompt',
      '--prompt-args',
      'city=Lisbon',
    );
    assert.ok(
      got.messages.some((m) => m.content.type === 'text' && (m.content.text ?? '').includes('Lisbon')),
      JSON.stringify(got.messages),
    );
  });
});

describe('the MCP Inspector CLI launching `centralmcp-router stdio`', () => {
  test('lists the tools, finds a tool and reads a file as the configured principal', async () => {
    const config = join(tempDir('centralmcp-inspector-stdio-'), 'router.yaml');
    writeFileSync(
      config,
      [
        'backends:',
        '  files:',
        '    transport: stdio',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(SERVER_ENTRIES.filesystem)}, ${JSON.stringify(dir)}]`,
        'access:',
        '  - { groups: [readers], allow: ["files:*"] }',
        'stdio: { principal: alice, groups: [readers] }',
        '',
      ].join('\n'),
    );
    // The Inspector takes --config for itself: the router's config comes by its environment variable.
    const router = [process.execPath, join(BUILD, 'src', 'cli.js'), 'stdio', '-e', `CENTRALMCP_ROUTER_CONFIG=${config}`];
    const listed = await inspectorAt<{ tools: { name: string }[] }>(router, 'tools/list');
    assert.deepEqual(
      listed.tools.map((t) => t.name),
      ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
    );
    const read = await inspectorAt<CallResult>(
      router,
      'tools/call',
      '--tool-name',
      'invoke_read_tool',
      '--tool-arg',
      'name=read_text_file',
      'server=files',
      `arguments=${JSON.stringify({ path: join(dir, 'notes.txt') })}`,
    );
    // The call comes right after the start: it waits for the backend's first connection.
    assert.equal((read.structuredContent as SingleAnswer).status, 'ok', JSON.stringify(read.structuredContent));
    assert.ok(read.content.some((b) => b.text === 'read through the Inspector'));
  });
});

describe('the MCP Inspector CLI and tools published directly (publish.mode both)', () => {
  let direct: RunningRouter;
  before(async () => {
    direct = await startRouter(testConfig([filesBackend(dir, { env: {} })], { publish: { mode: 'both', maxDirectTools: 128 } }));
  });
  after(async () => {
    await direct?.close();
  });

  test('lists files__read_text_file beside the meta-tools and calls it', async () => {
    const listed = await inspectorAt<{ tools: { name: string }[] }>(direct.url, 'tools/list');
    const names = listed.tools.map((t) => t.name);
    assert.ok(names.includes('files__read_text_file') && names.includes('find_tool'), JSON.stringify(names));
    assert.ok(!names.includes('files__write_file'), 'writes are off');
    const result = await inspectorAt<CallResult>(
      direct.url,
      'tools/call',
      '--tool-name',
      'files__read_text_file',
      '--tool-arg',
      `path=${join(dir, 'notes.txt')}`,
    );
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.ok(
      result.content.some((b) => b.type === 'text' && b.text === 'read through the Inspector'),
      JSON.stringify(result.content),
    );
  });
});
