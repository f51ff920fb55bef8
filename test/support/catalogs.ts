import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogTool, ToolAnnotations } from '../../src/registry/registry.types';

/** A hung server fails the test with its stderr instead of running into the test timeout. */
const REQUEST_TIMEOUT_MS = 20_000;
/** A server that hands out cursors forever is a bug worth a clear failure, not an endless loop. */
const MAX_PAGES = 100;

/** How to start one demo backend: the same servers, entry points and names as the demo config. */
interface DemoServer {
  backend: string;
  entry: string;
  args: string[];
  env?: Record<string, string>;
}

/** The demo backends as config/demo.yaml starts them, each from its package's `bin` entry. */
function demoServers(root: string): DemoServer[] {
  return [
    {
      backend: 'files',
      entry: require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'),
      args: [join(root, 'files')],
    },
    {
      backend: 'memory',
      entry: require.resolve('@modelcontextprotocol/server-memory/dist/index.js'),
      args: [],
      env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
    },
    {
      backend: 'everything',
      // `stdio` is the launcher's default transport; named explicitly, as the demo config does.
      entry: require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
      args: ['stdio'],
    },
  ];
}

/**
 * Starts the three demo MCP servers over stdio, lists every tool (following `nextCursor`), and
 * stops them again. Each run uses a fresh temp directory for the filesystem root and the memory
 * file, removed afterwards, so nothing leaks between runs or into the repository.
 */
export async function fetchDemoCatalogs(): Promise<CatalogTool[]> {
  const root = await mkdtemp(join(tmpdir(), 'centralmcp-catalogs-'));
  try {
    await mkdir(join(root, 'files'));
    // allSettled, not all: every server must be stopped before the temp directory goes.
    const listed = await Promise.allSettled(demoServers(root).map(listTools));
    const failed = listed.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return listed.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function listTools(server: DemoServer): Promise<CatalogTool[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [server.entry, ...server.args],
    env: server.env,
    // Piped (and drained) so the servers' start-up banners stay out of the test output but still
    // explain a failure.
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const client = new Client({ name: 'centralmcp-router-tests', version: '0.0.0' });
  try {
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    const tools: CatalogTool[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages === 0 || cursor !== undefined; pages += 1) {
      if (pages === MAX_PAGES) throw new Error(`more than ${MAX_PAGES} pages of tools`);
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: REQUEST_TIMEOUT_MS });
      tools.push(...page.tools.map((tool) => toCatalogTool(server.backend, tool)));
      cursor = page.nextCursor;
    }
    return tools;
  } catch (err: unknown) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`listing tools of demo backend '${server.backend}' failed: ${reason}\n${stderr}`, { cause: err });
  } finally {
    // Closing waits for the child to exit (stdin end, then SIGTERM, then SIGKILL). The transport is
    // closed too in case connect failed before the client took it over; a second close is a no-op.
    await client.close();
    await transport.close();
  }
}

function toCatalogTool(backend: string, tool: Tool): CatalogTool {
  const declared = tool.annotations;
  let annotations: ToolAnnotations | undefined;
  if (declared !== undefined) {
    annotations = {};
    if (declared.title !== undefined) annotations.title = declared.title;
    if (declared.readOnlyHint !== undefined) annotations.readOnlyHint = declared.readOnlyHint;
    if (declared.destructiveHint !== undefined) annotations.destructiveHint = declared.destructiveHint;
    if (declared.idempotentHint !== undefined) annotations.idempotentHint = declared.idempotentHint;
    if (declared.openWorldHint !== undefined) annotations.openWorldHint = declared.openWorldHint;
  }
  return {
    backend,
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    ...(annotations === undefined ? {} : { annotations }),
  };
}
