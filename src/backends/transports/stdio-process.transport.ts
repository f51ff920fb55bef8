import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Logger } from '@nestjs/common';
import { outsideRequest } from '../../common/request-context';
import type { StdioBackendConfig } from '../../config/config.types';
import { RESPONSE_TOO_LARGE_CODE, systemErrorCode } from '../domain/backend-failures';
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
/** A turn's lines this long go down the pipe at once, without waiting for the turn to end (a pipe holds 64 KiB). */
const FLUSH_CHARS = 64 * 1024;

/** How one write ended: null or undefined when its line reached the pipe. */
type WriteDone = (err: Error | null | undefined) => void;

/** The JSON-RPC error an over-long answer stands for: the request it answered fails with it. */
export interface OversizedAnswer {
  code: number;
  message: string;
  data: { reason: 'response_too_large'; bytes: number; limitBytes: number };
}

/**
 * MCP stdio transport (spec "Transports › stdio") over a child process of its own process group:
 * it moves messages, one JSON text per line, and matches nothing (the requests it carries are
 * tracked above it, `protocol/stdio-requests.ts`). Unlike the SDK's StdioClientTransport it can
 * kill the whole group (servers started through `npx`/`uvx`/shell wrappers leave grandchildren
 * otherwise) and it caps line length, so one huge response fails only its own call instead of the
 * whole connection.
 */
export class StdioProcessTransport {
  /** The child exited (or never ran) and its pipes are closed. */
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /**
   * One parsed line. Returns false when it is not a JSON-RPC message: the line is logged and
   * dropped (some servers print banners to stdout).
   */
  onmessage?: (message: unknown) => boolean;
  /**
   * A line over the cap whose edges name the id it answers: fails that request if one waits for it
   * (true), so it does not wait for its deadline.
   */
  onoversized?: (id: JsonRpcId, error: OversizedAnswer) => boolean;

  private readonly logger = new Logger(StdioProcessTransport.name);
  private readonly maxLineBytes: number;
  private readonly stdout: LineFramer;
  private readonly stderr = new LineFramer({ maxLineBytes: STDERR_LINE_BYTES, edgeBytes: EDGE_BYTES });
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
  /**
   * The lines written in this turn of the event loop, and who waits for each: they go down the
   * pipe in one write once the turn's I/O callbacks have run (`flush`), so calls read from several
   * connections in one poll phase cost the child one write and one wake-up, not one each.
   */
  private pendingLines = '';
  private pendingDone: WriteDone[] = [];
  private flushScheduled = false;
  /** Bound once, so scheduling the flush allocates no closure. */
  private readonly flushTurn = () => {
    this.flushScheduled = false;
    this.flush();
  };

  constructor(private readonly options: StdioProcessOptions) {
    this.maxLineBytes = options.maxLineBytes ?? MAX_RESPONSE_BYTES;
    this.stdout = new LineFramer({ maxLineBytes: this.maxLineBytes, edgeBytes: EDGE_BYTES });
  }

  /** How a stdio backend's child is started, whichever era it speaks. */
  static optionsOf(config: StdioBackendConfig): StdioProcessOptions {
    return {
      name: config.name,
      command: config.command,
      args: config.args,
      // Exactly the configured env: the router's own secrets never leak into a backend.
      env: { ...config.inheritedEnv, ...config.env },
      cwd: config.cwd,
    };
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
    const how = !this.exit ? 'process is gone' : this.exit.signal ? `process killed by ${this.exit.signal}` : `process exited with code ${this.exit.code}`;
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

  /** Writes one message as a line on the child's stdin; rejects with "Not connected" once it is gone. */
  async send(message: object): Promise<void> {
    await new Promise<void>((resolve, reject) => this.write(message, (err) => (err ? reject(err) : resolve())));
  }

  /**
   * `send` without a promise, for the router's own requests (one per call): throws "Not connected"
   * once the child is gone; `done` hears how the write ended. The line joins the turn's others
   * and goes down the pipe with them, in the order written (`flush`).
   */
  write(message: object, done: WriteDone): void {
    const stdin = this.child?.stdin;
    if (!stdin || this.finished || this.closing || !stdin.writable) throw new Error('Not connected');
    this.pendingLines += `${JSON.stringify(message)}\n`;
    this.pendingDone.push(done);
    if (this.pendingLines.length >= FLUSH_CHARS) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      // setImmediate, not nextTick: it runs after every I/O callback of this poll phase, so the
      // requests of all connections read together share the write. It serves them all, so it runs
      // in none's context.
      outsideRequest(() => setImmediate(this.flushTurn));
    }
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
      // Lines already written go out before the child's input ends, as the spec's shutdown expects.
      this.flush();
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

  /**
   * Writes the turn's lines in one write; each waiting `done` hears how it ended. A child gone
   * within the turn fails them with "Not connected", as a write after it had gone would.
   */
  private flush(): void {
    const done = this.pendingDone;
    if (done.length === 0) return;
    const lines = this.pendingLines;
    this.pendingLines = '';
    this.pendingDone = [];
    const stdin = this.child?.stdin;
    if (!stdin || this.finished || !stdin.writable) {
      const err = new Error('Not connected');
      for (const each of done) each(err);
      return;
    }
    stdin.write(lines, done.length === 1 ? done[0] : (err) => done.forEach((each) => each(err)));
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
    if (this.onmessage?.(parsed) === false) this.badLine(frame.text);
  }

  private badLine(text: string): void {
    // Some servers print banners to stdout; one bad line must not end the connection.
    this.logger.debug({ msg: 'non-JSON-RPC line on stdout', backend: this.options.name, line: clip(text) });
    this.onerror?.(new Error('backend wrote a line that is not a JSON-RPC message'));
  }

  /** Fails exactly the call the over-long line answered; every other call goes on. */
  private handleOversized(bytes: number, head: string, tail: string): void {
    const id = responseIdOf(head, tail);
    const error: OversizedAnswer = {
      code: RESPONSE_TOO_LARGE_CODE,
      message: 'Response too large',
      data: { reason: 'response_too_large', bytes, limitBytes: this.maxLineBytes },
    };
    // Unattributable (no id, or none waits for it): the call it answered runs into its timeout.
    const failed = id !== undefined && (this.onoversized?.(id, error) ?? false);
    this.logger.warn({ msg: 'dropped over-long stdout line', backend: this.options.name, bytes, limitBytes: this.maxLineBytes, failedRequest: failed });
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
      if (systemErrorCode(err) !== 'ESRCH') this.child?.kill(signal);
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
