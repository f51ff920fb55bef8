import type { BackendStatus } from '../../backends/backends.types';

/** What one server offers the caller, as `find_tool` reports it when nothing matched. */
export interface ServerSummary {
  name: string;
  /** Tools of this server the caller may call. */
  tools: number;
  connected: boolean;
  /** One line on what it serves: its first tool names. */
  summary: string;
}

/** A server the caller may use that is not connected now, with its state. */
export interface UnavailableServer {
  name: string;
  state: BackendStatus;
}

/** Tool names a server's summary shows. */
const SUMMARY_TOOLS = 4;

/** The note of an answer whose hits are not matches but the first tools of the catalog. */
export const NO_MATCH_NOTE =
  'no close match: no tool matched the words of the query; the hits are the first tools of the catalog (score 0), ' +
  'not matches; `servers` lists the servers available, with what each serves; try other words or name a `server`';

/** A server with the tools of it the caller may call, in catalog order. */
export function serverSummary(state: { name: string; status: BackendStatus }, tools: readonly { name: string }[]): ServerSummary {
  const names = tools.slice(0, SUMMARY_TOOLS).map((t) => t.name);
  const summary =
    tools.length === 0
      ? 'no tools known yet'
      : `${tools.length} tool${tools.length === 1 ? '' : 's'}: ${names.join(', ')}${tools.length > names.length ? ', …' : ''}`;
  return { name: state.name, tools: tools.length, connected: state.status === 'up', summary };
}

/** Why there are no hits at all: nothing the caller may call is in the catalog. */
export function emptyCatalogNote(notConnected: readonly { name: string; status: BackendStatus }[]): string {
  if (notConnected.length === 0) return 'no tools are available to you: the catalog holds no tool you may call';
  const which = notConnected.map((s) => `${s.name} (${s.status})`).join(', ');
  return `no tools are available: ${notConnected.length === 1 ? 'this server is' : 'these servers are'} not connected: ${which}; try again shortly`;
}

/**
 * The refusal of a `server` the caller has no tool of (`invalid_arguments`): names the servers it
 * may use, never the value it sent.
 */
export function unknownServerMessage(available: readonly string[]): string {
  return available.length === 0
    ? '`server` names no server you may use, and no server has tools you may call'
    : `\`server\` names no server you may use; servers: ${available.join(', ')}`;
}

/**
 * What an empty answer adds when tools the caller could call are quarantined (trust `enforce`):
 * without it a model would read "no tools" and give up, or an operator would look for a fault.
 * Counts per server only: a quarantined tool's description is what may have been poisoned.
 */
export function quarantineNote(quarantined: readonly { name: string; tools: number }[]): string | undefined {
  const total = quarantined.reduce((sum, s) => sum + s.tools, 0);
  if (total === 0) return undefined;
  const which = quarantined.map((s) => `${s.name} (${s.tools})`).join(', ');
  return (
    `${total} tool${total === 1 ? ' is' : 's are'} quarantined by the trust pins until an operator approves ` +
    `${total === 1 ? 'its definition' : 'their definitions'}: ${which}; until then ${total === 1 ? 'it' : 'they'} cannot be found or called`
  );
}

/** Why tools that change things are missing from the hits: writes are off on this router. */
export function writesOffNote(matched: number): string {
  return (
    `${matched} tool${matched === 1 ? '' : 's'} that change${matched === 1 ? 's' : ''} things matched this query but ` +
    `${matched === 1 ? 'is' : 'are'} not offered: writes are off on this router, so only read-only tools can be called`
  );
}
