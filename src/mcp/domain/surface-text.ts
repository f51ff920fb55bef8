import type { PublishMode } from '../../config/config.types';

/** The parts of the server's instructions (`initialize`, `server/discover`), by what is published. */
const META =
  'This router fronts many MCP servers. Use find_tool to search their tools, then invoke_read_tool ' +
  'with the exact name (and server) to call a read-only one, or invoke_read_tool_batch for up to 25 ' +
  'read-only calls in one round trip.';
const META_WRITES =
  ' Tools that change something go through invoke_tool; a destructive one first answers ' +
  'confirmation_required with a `confirmation` to pass back as `confirm` with the same call.';
const DIRECT =
  'This router fronts many MCP servers: their tools you may call are published as <server>__<tool>. ' +
  'A large answer is cut: when it has `next_cursor`, its `resume` says how to get the next part with invoke_read_tool.';
const ALSO_DIRECT =
  ' The tools you may call are also published directly as <server>__<tool>; a cut answer of one says in `resume` ' +
  'how to get the rest with invoke_read_tool.';
const DIRECT_WRITES =
  ' A tool that may change or delete data first answers confirmation_required with a `confirmation`: ' +
  'call it again with the same arguments plus `confirm` set to it.';

/** What the server's instructions say in `mode`, with writes on or off, before any sentence about tools past the limit. */
export function instructionsFor(mode: PublishMode, writes: boolean): string {
  switch (mode) {
    case 'meta':
      return writes ? META + META_WRITES : META;
    case 'both':
      return META + (writes ? META_WRITES : '') + ALSO_DIRECT;
    case 'direct':
      return DIRECT + (writes ? DIRECT_WRITES : '');
  }
}

/**
 * What a cut answer of a tool published directly says beside `next_cursor`: a published tool's
 * schema is its backend's, with no room for a cursor, so the rest is fetched with invoke_read_tool.
 * Names only, never an argument's value.
 */
export function resumeHint(tool: string, server: string): string {
  return (
    `To get the next part, call invoke_read_tool with name ${JSON.stringify(tool)}, server ${JSON.stringify(server)}, ` +
    'the same arguments (under `arguments`) and `cursor` set to next_cursor.'
  );
}

/** How a `confirmation_required` answer of a write published directly says to confirm it. */
export function directConfirmHint(publishedName: string, field: string): string {
  return `call ${publishedName} again with the same arguments plus \`${field}\``;
}
