/**
 * The package as a user installs it: `npm pack` makes a tarball that `npm install -g` puts in a
 * fresh prefix, and the installed `centralmcp-router stdio --config FILE` serves the SDK client,
 * the prepared lexicon and the filesystem server from the package itself, with nothing but Node
 * on PATH. The dependencies come from the registry through the npm cache, as a user's would.
 *
 * Packed from a staging folder holding the repository's package files and the tests' own build as
 * `dist/` (its `build` script stubbed), so the run neither rebuilds nor touches the repository's
 * `dist/`; `prepack` and `postpack` run as they are.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { waitFor } from './support/backend-processes';
import { BUILD, readAsModel, ROOT, tempDir, type FindAnswer, type SingleAnswer, type ToolResult } from './support/router';

const run = promisify(execFile);
/** The environment without what an enclosing `npm test` passes down (`npm_config_*`, `npm_package_*`). */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
/** npm as a user runs it, with the user's cache (HOME). */
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env: ENV, maxBuffer: 16 * 1024 * 1024 });

/** A copy of the repository's package as `npm pack` sees it, with the tests' build as `dist/`. */
function stage(): string {
  const dir = tempDir('centralmcp-stage-');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  pkg.scripts.build = 'node -e ""';
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  for (const file of ['package-lock.json', 'README.md', 'config/demo.yaml', 'scripts/prepare-lexicon.mjs']) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  cpSync(join(ROOT, 'data', 'lexicon'), join(dir, 'data', 'lexicon'), { recursive: true, dereference: true });
  cpSync(join(BUILD, 'src'), join(dir, 'dist', 'src'), { recursive: true, filter: (src) => !src.endsWith('.spec.js') });
  return dir;
}

describe('npm pack, npm install -g, centralmcp-router stdio', { timeout: 600_000 }, () => {
  let prefix: string;
  let packed: string[];
  let client: Client;
  let stderr = '';
  const files = tempDir('centralmcp-packed-files-');
  writeFileSync(join(files, 'readme.txt'), 'installed from the packed tarball\n');

  before(async () => {
    const staging = stage();
    const { stdout } = await npm(['pack', '--json'], staging);
    // The JSON report follows whatever the pack scripts print.
    const report = stdout.slice(stdout.search(/^\[/m));
    const [{ filename, files: entries }] = JSON.parse(report) as { filename: string; files: { path: string }[] }[];
    packed = entries.map((e) => e.path);
    prefix = tempDir('centralmcp-prefix-');
    await npm(['install', '--global', '--prefix', prefix, '--prefer-offline', join(staging, filename)], staging);
    assert.ok(!existsSync(join(staging, 'npm-shrinkwrap.json')), 'postpack removes the shrinkwrap it packed');

    const installed = join(prefix, 'lib', 'node_modules', 'centralmcp-router');
    const config = join(files, 'router.yaml');
    const server = join(installed, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
    writeFileSync(config, `backends:\n  files:\n    transport: stdio\n    command: node\n    args: [${JSON.stringify(server)}, ${JSON.stringify(files)}]\n`);
    const transport = new StdioClientTransport({
      command: join(prefix, 'bin', 'centralmcp-router'),
      args: ['stdio', '--config', config],
      // Node and nothing else: the router, its backend and its data come from the installed package.
      env: { PATH: dirname(process.execPath), HOME: files },
      cwd: files,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: 'packed-e2e', version: '1.0.0' });
    await client.connect(transport);
    await waitFor(() => stderr.includes('"message":"backends started"'), 60_000, 'backends started');
  });

  after(async () => {
    await client?.close();
  });

  test('the tarball holds the build, the prepared lexicon and the pinned dependency tree, no tests', () => {
    for (const file of [
      'dist/src/cli.js',
      'dist/src/stdio-main.js',
      'data/lexicon/manifest.json',
      'data/lexicon/vectors.i8',
      'npm-shrinkwrap.json',
      'scripts/prepare-lexicon.mjs',
    ]) {
      assert.ok(packed.includes(file), file);
    }
    assert.deepEqual(
      packed.filter((p) => p.endsWith('.spec.js') || p.startsWith('test/') || p.startsWith('src/')),
      [],
    );
  });

  test('the installed command lists the tools, finds one and reads a file; the lexicon is loaded', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch']);
    const found = readAsModel<FindAnswer>(
      (await client.callTool({ name: 'find_tool', arguments: { query: 'read the contents of a text file' } })) as ToolResult,
    ).head;
    assert.ok(
      found.hits.some((h) => h.name === 'read_text_file' && h.server === 'files'),
      JSON.stringify(found).slice(0, 300),
    );
    const read = readAsModel<SingleAnswer>(
      (await client.callTool({
        name: 'invoke_read_tool',
        arguments: { name: 'read_text_file', arguments: { path: join(files, 'readme.txt') } },
      })) as ToolResult,
    );
    assert.equal(read.head.status, 'ok');
    assert.match(read.blocks.map((b) => b.text).join(''), /installed from the packed tarball/);
    assert.ok(!stderr.includes('ranks by words only'), 'no lexicon warning');
    assert.ok(readdirSync(join(prefix, 'lib', 'node_modules', 'centralmcp-router', 'data', 'lexicon')).includes('manifest.json'));
  });
});
