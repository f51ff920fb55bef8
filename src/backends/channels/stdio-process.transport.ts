import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Logger } from '@nestjs/common';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RESPONSE_TOO_LARGE_CODE } from '../domain/backend-failures';
import { KILL_GRACE_MS, MAX_RESPONSE_BYTES } from '../domain/limits';
import { type Frame, type JsonRpcId, LineFramer, responseIdOf } from '../domain/line-framer';

export interface StdioProcessOptions {
  /** Backend name, for logs. */
  name: string;
  command: string;
  args: readonly string[];
  /** The child's whole environment: nothing is inherited beyond what is passed here. */
  env: Record<string, string>;
  cwd?: string;
  /** Longest stdout line accepted; a longer response fails only its own call. Default `MAX_RESPONSE_BYTES`. */
  maxLineBytes?: number;
  /** Time between SIGTERM and SIGKILL of the process group on close. Default `KILL_GRACE_MS`. */
  killGraceMs?: number;
}

/** Enough of an over-long line's edges to find its envelope id (`,"jsonrpc":"2.0","id":…}`). */
const EDGE_BYTES = 256;
const STDERR_LINE_BYTES = 4 * 1024;
const LOGGED_LINE_CHARS = 500;
/** After the leader exits, how long to wait for the pipes to close before reporting the close. */
const PIPE_DRAIN_MS = 1_000;
/** Prefix of direct request ids: numbers are the SDK client's, so the two never collide. */
const DIRECT_ID_PREFIX = 'd';

/** A request sent with `request()`, waiting for its answer. */
interface DirectCall {
  resolve: (message: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * MCP stdio transport (spec "Transports › stdio") over a child process of its own process group.
 * Unlike the SDK's StdioClientTransport it can kill the whole group (servers started through
 * `npx`/`uvx`/shell wrappers leave grandchildren otherwise) and it caps line length, so one huge
 * response fails only its own call instead of the whole connection.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private readonly logger = new Logger(StdioProcessTransport.name);
  private readonly maxLineBytes: number;
  private readonly stdout: LineFramer;
  private readonly stderr = new LineFramer({ maxLineBytes: STDERR_LINE_BYTES, edgeBytes: EDGE_BYTES });
  /** Ids of the SDK's requests still waiting for an answer: only those may get a synthesized error. */
  private readonly pending = new Set<JsonRpcId>();
  /** Requests sent with `request()`: answered here, never seen by the SDK. */
  private readonly direct = new Map<string, DirectCall>();
  private nextDirectId = 0;
  private child: ChildProcessWithoutNullStreams | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private finished = false;
  private closing = false;
  private killTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private resolveFinished!: () => void;
  /** Resolves once the child has exited and the close was reported. */
  readonly finishedPromise = new Promise<void>((resolve) => (this.resolveFinished = resolve));
  private lastStderr: string | undefined;
  /** Why the child never ran (ENOENT: no such command, EACCES: not executable). */
  private spawnError: NodeJS.ErrnoException | undefined;
  private handedOver = false;

  constructor(private readonly options: StdioProcessOptions) {
    this.maxLineBytes = options.maxLineBytes ?? MAX_RESPONSE_BYTES;
    this.stdout = new LineFramer({ maxLineBytes: this.maxLineBytes, edgeBytes: EDGE_BYTES });
  }

  /** Process id of the child, which is also its process group id (it is spawned detached). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** True when the command could not be started at all. */
  get spawnFailed(): boolean {
    return this.spawnError !== undefined;
  }

  /** How the child ended and the last thing it said on stderr, for logs and health detail. */
  describeExit(): string {
    if (this.spawnError) return `cannot run command ${JSON.stringify(this.options.command)}: ${spawnErrorText(this.spawnError)}`;
    const how = !this.exit
      ? 'process is gone'
      : this.exit.signal
        ? `process killed by ${this.exit.signal}`
        : `process exited with code ${this.exit.code}`;
    return this.lastStderr ? `${how}; stderr: ${this.lastStderr}` : how;
  }

  /**
   * The next `start()` keeps the running child instead of failing: the era probe sent it
   * `server/discover`, the answer said legacy, and the 2025 client goes on with `initialize` on
   * the same process (spec 2026-07-28 stdio "Backward Compatibility").
   */
  handOver(): void {
    this.handedOver = true;
  }

  async start(): Promise<void> {
    if (this.handedOver) {
      this.handedOver = false;
      // The probed child died between the probe and `initialize`: say how, as any exit is said.
      if (this.finished || this.closing) throw new Error(this.describeExit());
      return;
    }
    if (this.child || this.closing) throw new Error('StdioProcessTransport cannot be started twice');
    const { command, args, env, cwd } = this.options;
    // detached: the child leads a new process group, so close() can signal every descendant.
    const child = spawn(command, [...args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env, cwd });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr.on('data', (chunk: Buffer) => this.onStderr(chunk));
    // EPIPE when the child dies with a write in flight: the exit handler reports it.
    child.stdin.on('error', (err) => this.logger.debug({ msg: 'stdin error', backend: this.options.name, err: err.message }));
    child.once('exit', (code, signal) => this.onExit(code, signal));
    child.once('close', () => this.finish());
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.on('error', (err) => {
        if (child.pid !== undefined) {
          this.onerror?.(err);
          return;
        }
        this.spawnError = err;
        this.finish(); // never ran (ENOENT, EACCES): nothing to wait for
        reject(err);
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Plain checks: only the message kind matters here, and this runs for every message sent.
    const m = message as { id?: JsonRpcId; method?: string; params?: { requestId?: unknown } };
    if (typeof m.method === 'string' && m.id !== undefined) this.pending.add(m.id);
    if (m.method === 'notifications/cancelled' && m.id === undefined) {
      const requestId = m.params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.pending.delete(requestId);
    }
    await this.write(message);
  }

  /**
   * One request outside the SDK's client, for the hot path (`tools/call`): its answer is matched
   * here by id and handed back raw, without the SDK's schema parsing and bookkeeping, and it is
   * bounded like any other (a cap on the answer's line, a deadline after which the backend is sent
   * `notifications/cancelled`). Rejects with the SDK's error codes, so one mapping reads both paths.
   */
  request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<{ id: string; message: unknown }> {
    const id = `${DIRECT_ID_PREFIX}${++this.nextDirectId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.direct.delete(id);
        reject(new McpError(ErrorCode.RequestTimeout, 'Request timed out'));
        void this.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'deadline passed' } }).catch(() => undefined);
      }, timeoutMs);
      this.direct.set(id, { resolve: (message) => resolve({ id, message }), reject, timer });
      this.write({ jsonrpc: '2.0', id, method, params }).catch((err: Error) => this.settleDirect(id, err));
    });
  }

  private async write(message: object): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.finished || this.closing || !stdin.writable) throw new Error('Not connected');
    await new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message as JSONRPCMessage), (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Settles a direct request with its answer or an error; false if no such request waits. */
  private settleDirect(id: string, outcome: Error | { answer: unknown }): boolean {
    const call = this.direct.get(id);
    if (!call) return false;
    this.direct.delete(id);
    clearTimeout(call.timer);
    if (outcome instanceof Error) call.reject(outcome);
    else call.resolve(outcome.answer);
    return true;
  }

  /**
   * Ends the child as the MCP spec's stdio shutdown describes (close its input, then SIGTERM,
   * then SIGKILL), but for the whole process group; resolves once the child has exited.
   */
  async close(): Promise<void> {
    if (!this.child) {
      this.closing = true;
      this.finish();
      return;
    }
    if (!this.finished && !this.closing) {
      this.closing = true;
      this.child.stdin.end();
      this.signalGroup('SIGTERM');
      this.killTimer = setTimeout(() => this.signalGroup('SIGKILL'), this.options.killGraceMs ?? KILL_GRACE_MS);
    }
    await this.finishedPromise;
  }

  /** Last-resort synchronous kill, for the router's own `exit` event (no awaiting possible there). */
  killNow(): void {
    if (this.child && !this.finished) this.signalGroup('SIGKILL');
  }

  private onStdout(chunk: Buffer): void {
    for (const frame of this.stdout.push(chunk)) this.handleFrame(frame);
  }

  private handleFrame(frame: Frame): void {
    if (frame.kind === 'oversized') {
      this.handleOversized(frame.bytes, frame.head, frame.tail);
      return;
    }
    if (frame.text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(frame.text);
    } catch {
      return this.badLine(frame.text);
    }
    // The answer to a direct request goes straight back to it; its caller checks its shape.
    const id = (parsed as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id.startsWith(DIRECT_ID_PREFIX) && this.settleDirect(id, { answer: parsed })) return;
    const checked = JSONRPCMessageSchema.safeParse(parsed);
    if (!checked.success) return this.badLine(frame.text);
    const message = checked.data;
    if ('id' in message && !('method' in message) && message.id !== undefined) this.pending.delete(message.id);
    this.onmessage?.(message);
  }

  private badLine(text: string): void {
    // Some servers print banners to stdout; one bad line must not end the connection.
    this.logger.debug({ msg: 'non-JSON-RPC line on stdout', backend: this.options.name, line: clip(text) });
    this.onerror?.(new Error('backend wrote a line that is not a JSON-RPC message'));
  }

  /** Fails exactly the call the over-long line answered; every other call goes on. */
  private handleOversized(bytes: number, head: string, tail: string): void {
    const id = responseIdOf(head, tail);
    const direct = typeof id === 'string' && this.direct.has(id);
    const known = direct || (id !== undefined && this.pending.has(id));
    this.logger.warn({ msg: 'dropped over-long stdout line', backend: this.options.name, bytes, limitBytes: this.maxLineBytes, failedRequest: known });
    if (id === undefined || !known) return; // unattributable: the call it answered runs into its timeout
    const error = { code: RESPONSE_TOO_LARGE_CODE, message: 'Response too large', data: { reason: 'response_too_large', bytes, limitBytes: this.maxLineBytes } };
    if (direct) {
      this.settleDirect(id as string, new McpError(error.code, error.message, error.data));
      return;
    }
    this.pending.delete(id);
    this.onmessage?.({ jsonrpc: '2.0', id, error });
  }

  private onStderr(chunk: Buffer): void {
    // Always read, so a chatty server never blocks on a full pipe.
    for (const frame of this.stderr.push(chunk)) {
      const line = frame.kind === 'line' ? frame.text : `${frame.head}… (${frame.bytes} bytes)`;
      if (line.trim() === '') continue;
      this.lastStderr = clip(line, 200);
      this.logger.debug({ msg: 'backend stderr', backend: this.options.name, line: clip(line) });
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    if (this.killTimer) clearTimeout(this.killTimer);
    // The leader is gone; anything left in its group is an orphan of a dead backend.
    this.signalGroup('SIGKILL');
    // 'close' follows once the pipes close; a descendant that escaped the group could hold them.
    this.drainTimer = setTimeout(() => {
      this.child?.stdout.destroy();
      this.child?.stderr.destroy();
      this.finish();
    }, PIPE_DRAIN_MS);
    this.drainTimer.unref();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.pending.clear();
    for (const id of [...this.direct.keys()]) this.settleDirect(id, new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    this.resolveFinished();
    this.onclose?.();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch (err) {
      // ESRCH: the whole group is already gone, which is the goal.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') this.child?.kill(signal);
    }
  }
}

function clip(text: string, max = LOGGED_LINE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The OS error of a failed spawn in an operator's words, with its code to search for. */
function spawnErrorText(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return 'ENOENT (no such file, or not on PATH)';
    case 'EACCES':
      return 'EACCES (permission denied: not executable)';
    default:
      return err.code ?? err.message;
  }
}
