import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import { RouterError } from '../../common/router-error';
import type { StdioBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { describeFailure, toRouterError } from '../domain/backend-failures';
import { outcomeOf, readCallAnswer } from '../domain/call-answer';
import { initializeRefusal } from '../domain/modern-protocol';
import type { BackendChannel, ChannelCall, ChannelCloseReason, ChannelEvents } from './backend-channel';
import { listAllTools, newSdkClient } from './sdk-client';
import { type StdioProcessOptions, StdioProcessTransport } from './stdio-process.transport';

/**
 * A stdio backend (spec "Transports › stdio"): a child process of its own process group. Calls are
 * written as direct requests on the child's stdin and matched by id on its stdout, outside the SDK
 * client (BENCHMARKS.md item 6); the answer line is capped by the transport and read by the one
 * answer validator (`domain/call-answer`).
 */
export class StdioChannel implements BackendChannel {
  private readonly logger = new Logger(StdioChannel.name);
  private readonly transport: StdioProcessTransport;
  private readonly client: Client;
  private closed = false;

  /** `probed`: a child the era probe already started and found legacy; `connect` goes on with it. */
  constructor(
    private readonly config: StdioBackendConfig,
    events: ChannelEvents,
    probed?: StdioProcessTransport,
  ) {
    this.transport = probed ?? new StdioProcessTransport(stdioProcessOptions(config));
    this.client = newSdkClient(events);
    this.client.onclose = () => {
      this.closed = true;
      // "Connection closed" says nothing; the child's exit status and last stderr line do.
      events.onClose(this.transport.describeExit());
    };
    // A bad line or a failed write: the child's exit, if any, is reported by onclose.
    this.client.onerror = (err) => this.logger.debug({ msg: 'transport error', backend: config.name, detail: describeFailure(err) });
  }

  readonly era = 'legacy' as const;

  get pid(): number | undefined {
    return this.transport.pid;
  }

  async connect(timeoutMs: number): Promise<void> {
    try {
      await this.client.connect(this.transport, { timeout: timeoutMs });
    } catch (err) {
      // A 2026-only server at `era: legacy`: say which era it wants, not just its error code.
      const refusal = err instanceof McpError ? initializeRefusal(err.code, err.data) : undefined;
      throw refusal === undefined ? err : new Error(refusal);
    }
  }

  listTools(pageTimeoutMs: () => number): Promise<Tool[]> {
    return listAllTools(this.client, pageTimeoutMs);
  }

  async call({ tool, arguments: args, timeoutMs }: ChannelCall): Promise<BackendToolResult> {
    const backend = this.config.name;
    let outcome: BackendToolResult | RouterError;
    try {
      const { id, message } = await this.transport.request('tools/call', { name: tool, arguments: args }, timeoutMs);
      outcome = outcomeOf(readCallAnswer(message, id), backend);
    } catch (err) {
      throw toRouterError(err, backend, timeoutMs);
    }
    if (outcome instanceof RouterError) throw outcome;
    return outcome;
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.client.ping({ timeout: timeoutMs });
  }

  /** Closes stdin, then SIGTERM and SIGKILL of the group (spec stdio shutdown); resolves once it exited. */
  async close(_reason: ChannelCloseReason): Promise<void> {
    await this.client.close().catch((err: unknown) => this.logger.debug({ msg: 'close failed', backend: this.config.name, detail: describeFailure(err) }));
  }

  kill(): void {
    this.transport.killNow();
  }

  describeFailure(err: unknown): string {
    return this.closed || this.transport.spawnFailed ? this.transport.describeExit() : describeFailure(err);
  }
}

/** How a stdio backend's child is started, whichever era it speaks. */
export function stdioProcessOptions(config: StdioBackendConfig): StdioProcessOptions {
  return {
    name: config.name,
    command: config.command,
    args: config.args,
    // Exactly the configured env: the router's own secrets never leak into a backend.
    env: { ...config.inheritedEnv, ...config.env },
    cwd: config.cwd,
  };
}
