import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { StdioBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { describeFailure, toRouterError } from '../domain/backend-failures';
import { outcomeOf, readCallAnswer } from '../domain/call-answer';
import { initializeRefusal } from '../domain/modern-protocol';
import { StdioRequests } from '../protocol/stdio-requests';
import { StdioProcessTransport } from '../transports/stdio-process.transport';
import type { ChannelCall, ChannelEvents } from './backend-channel';
import { LegacySdkChannel } from './legacy-sdk.channel';
import { traceFields } from '../domain/trace-meta';

/**
 * A stdio backend of the 2025 eras (spec "Transports › stdio"): a child process of its own process
 * group. Calls are written as requests of the router's own on the child's stdin and matched by id
 * on its stdout, outside the SDK client (BENCHMARKS.md item 6); the answer line is capped by the
 * transport and read by the one answer validator (`domain/call-answer`).
 */
export class StdioChannel extends LegacySdkChannel {
  private readonly requests: StdioRequests;
  private readonly readCall = (message: unknown, id: string) => outcomeOf(readCallAnswer(message, id), this.config.name);

  /** `probed`: the pipe to a child the era probe already started and found legacy; `connect` goes on with it. */
  constructor(config: StdioBackendConfig, events: ChannelEvents, probed?: StdioRequests) {
    const requests = probed ?? new StdioRequests(new StdioProcessTransport(StdioProcessTransport.optionsOf(config)));
    super(config, events, requests.sdkTransport());
    this.requests = requests;
  }

  get pid(): number | undefined {
    return this.requests.transport.pid;
  }

  override async connect(timeoutMs: number): Promise<void> {
    try {
      await super.connect(timeoutMs);
    } catch (err) {
      // A 2026-only server at `era: legacy`: say which era it wants, not just its error code.
      const refusal = err instanceof McpError ? initializeRefusal(err.code, err.data) : undefined;
      throw refusal === undefined ? err : new Error(refusal);
    }
  }

  call({ tool, arguments: args, timeoutMs, trace }: ChannelCall): Promise<BackendToolResult> {
    const meta = traceFields(trace);
    const params = meta === undefined ? { name: tool, arguments: args } : { name: tool, arguments: args, _meta: meta };
    // Not async: one `then` on the request's own promise, rather than a promise more and its turns.
    const failed = (err: unknown): never => {
      throw toRouterError(err, this.config.name, timeoutMs);
    };
    try {
      return this.requests.request<BackendToolResult>('tools/call', params, timeoutMs, this.readCall).then(undefined, failed);
    } catch (err) {
      return Promise.reject(err).then(undefined, failed);
    }
  }

  override kill(): void {
    this.requests.transport.killNow();
  }

  override describeFailure(err: unknown): string {
    const { transport } = this.requests;
    return this.closed || transport.spawnFailed ? transport.describeExit() : describeFailure(err);
  }

  /** "Connection closed" says nothing; the child's exit status and last stderr line do. */
  protected closeReason(): string {
    return this.requests.transport.describeExit();
  }

  /** A bad line or a failed write: the child's exit, if any, is reported by onclose. */
  protected transportError(err: Error): void {
    this.logger.debug({ msg: 'transport error', backend: this.config.name, detail: describeFailure(err) });
  }
}
