import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcId } from '../domain/line-framer';
import type { OversizedAnswer, StdioProcessTransport } from '../transports/stdio-process.transport';
import { RequestTracker } from './request-tracker';

/**
 * The router's requests over one stdio child's pipe, above its `StdioProcessTransport`: each is one
 * line with a `d…` id whose answer is matched here, past its deadline the backend is sent
 * `notifications/cancelled` (stdio has no per-request stream to close: spec stdio
 * "Cancellation"), and a child that exits fails every request in flight at once. Answers are
 * handed back raw to the request's reader (`domain/call-answer` for a call), without the SDK's
 * schema parsing and bookkeeping: this is the hot path (BENCHMARKS.md item 6). Every other line is
 * checked as a JSON-RPC message and passed on: to a 2025 channel's SDK client (`sdkTransport`) or
 * to a 2026 channel's subscription (`onmessage`).
 *
 * The pipe, its requests and its id sequence go together from the era probe to the 2025 channel
 * when the probe finds a legacy server (`handOver`): a late answer to the probe never meets a
 * request of the same id.
 */
export class StdioRequests {
  /** A message none of the router's requests claimed, checked as JSON-RPC. */
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private readonly tracker = new RequestTracker({
    idPrefix: 'd',
    timedOut: () => new McpError(ErrorCode.RequestTimeout, 'Request timed out'),
    cancel: (id) =>
      void this.transport
        .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'deadline passed' } })
        .catch(() => undefined),
  });
  /**
   * Ids of requests sent through `send` (the SDK client's, a subscription's) still waiting for an
   * answer: matched by their senders, but an over-long answer to one is failed from here.
   */
  private readonly passedOn = new Set<JsonRpcId>();

  constructor(readonly transport: StdioProcessTransport) {
    this.attach();
  }

  /**
   * One request: resolves with what `read` makes of its answer, or rejects with the SDK's error
   * codes (RequestTimeout, ConnectionClosed, the response cap's), so one mapping reads both the SDK
   * client's failures and these.
   */
  request<T>(method: string, params: Record<string, unknown>, timeoutMs: number, read: (message: unknown, id: string) => T | Error): Promise<T> {
    const id = this.tracker.nextId();
    const answer = this.tracker.track(id, timeoutMs, timeoutMs, read, undefined);
    // Written without a promise of its own: a failed write fails its request, now or when it ends.
    try {
      this.transport.write({ jsonrpc: '2.0', id, method, params }, (err) => {
        if (err) this.tracker.fail(id, err);
      });
    } catch (err) {
      this.tracker.fail(id, err instanceof Error ? err : new Error(String(err)));
    }
    return answer;
  }

  /** A message whose answer, if any, its sender matches itself (the SDK client's, a subscription's). */
  async send(message: JSONRPCMessage): Promise<void> {
    // Plain checks: only the message kind matters here, and this runs for every message sent.
    if ('method' in message && 'id' in message) this.passedOn.add(message.id);
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.passedOn.delete(requestId);
    }
    await this.transport.send(message);
  }

  /**
   * The pipe as an SDK `Transport`, for a 2025 channel's SDK client (`initialize`, `tools/list`,
   * `ping`, notifications): it sees every message none of the router's requests claimed.
   */
  sdkTransport(): Transport {
    const adapter: Transport = {
      start: () => this.transport.start(),
      send: (message) => this.send(message),
      close: () => this.transport.close(),
    };
    this.onmessage = (message) => adapter.onmessage?.(message);
    this.onclose = () => adapter.onclose?.();
    this.onerror = (err) => adapter.onerror?.(err);
    return adapter;
  }

  /** Lets go of every handler: the pipe goes on with another owner (see `handOver`). */
  detach(): void {
    this.onmessage = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
  }

  private attach(): void {
    const { transport } = this;
    transport.onmessage = (message) => this.receive(message);
    transport.onoversized = (id, error) => this.oversized(id, error);
    transport.onclose = () => {
      this.passedOn.clear();
      this.tracker.failAll(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
      this.onclose?.();
    };
    transport.onerror = (err) => this.onerror?.(err);
  }

  /** False when the line is not a JSON-RPC message (the transport logs it). */
  private receive(message: unknown): boolean {
    // The answer to one of the router's requests goes straight back to it; its reader checks its shape.
    if (this.tracker.route(message)) return true;
    const checked = JSONRPCMessageSchema.safeParse(message);
    if (!checked.success) return false;
    const parsed = checked.data;
    if ('id' in parsed && !('method' in parsed) && parsed.id !== undefined) this.passedOn.delete(parsed.id);
    this.onmessage?.(parsed);
    return true;
  }

  /** Fails exactly the request an over-long answer was for, ours or one passed on. */
  private oversized(id: JsonRpcId, error: OversizedAnswer): boolean {
    if (typeof id === 'string' && this.tracker.waits(id)) {
      this.tracker.fail(id, new McpError(error.code, error.message, error.data));
      return true;
    }
    if (!this.passedOn.has(id)) return false;
    this.passedOn.delete(id);
    this.onmessage?.({ jsonrpc: '2.0', id, error });
    return true;
  }
}
