/**
 * Newline-delimited framing of a byte stream (the MCP stdio transport: one JSON-RPC message per
 * line) with a cap on line length. A line over the cap is never buffered whole: only its first and
 * last few bytes are kept, so a backend that prints 2 GB on one line costs a few hundred bytes.
 * Pure: bytes in, frames out.
 */

export interface LineFramerOptions {
  /** Longest line delivered, in bytes (without the newline). */
  maxLineBytes: number;
  /** Bytes kept from the start and from the end of an over-long line. */
  edgeBytes: number;
}

export type Frame =
  | { kind: 'line'; text: string }
  /** A line over the cap: its total size, its first and its last `edgeBytes` bytes. */
  | { kind: 'oversized'; bytes: number; head: string; tail: string };

const NEWLINE = 0x0a;

export class LineFramer {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Set while the current line is over the cap: only its edges are kept from then on. */
  private discarding: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(private readonly options: LineFramerOptions) {}

  /** Feeds bytes; returns every frame that this chunk completed, in order. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) break;
      frames.push(this.finishLine());
      start = nl + 1;
    }
    return frames;
  }

  /** Bytes held for the line in progress (bounded by the cap plus two edges). */
  get pendingBytes(): number {
    return this.discarding ? this.discarding.head.length + this.discarding.tail.length : this.buffered;
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.discarding) {
      this.discarding.bytes += part.length;
      this.discarding.tail = lastBytes(Buffer.concat([this.discarding.tail, lastBytes(part, this.options.edgeBytes)]), this.options.edgeBytes);
      return;
    }
    if (this.buffered + part.length <= this.options.maxLineBytes) {
      this.chunks.push(part);
      this.buffered += part.length;
      return;
    }
    // Over the cap: switch to keeping edges only and free what was buffered. Only the edges are
    // copied, never the megabytes between them.
    const all = [...this.chunks, part];
    this.discarding = {
      bytes: this.buffered + part.length,
      head: edge(all, this.options.edgeBytes, 'head'),
      tail: edge(all, this.options.edgeBytes, 'tail'),
    };
    this.chunks = [];
    this.buffered = 0;
  }

  private finishLine(): Frame {
    if (this.discarding) {
      const { bytes, head, tail } = this.discarding;
      this.discarding = undefined;
      return { kind: 'oversized', bytes, head: head.toString('utf8'), tail: stripCr(tail.toString('utf8')) };
    }
    const text = stripCr(Buffer.concat(this.chunks, this.buffered).toString('utf8'));
    this.chunks = [];
    this.buffered = 0;
    return { kind: 'line', text };
  }
}

/** A copy of the first or last `n` bytes of the chunks, taken together. */
function edge(chunks: readonly Buffer[], n: number, which: 'head' | 'tail'): Buffer {
  const picked: Buffer[] = [];
  let got = 0;
  for (let i = 0; i < chunks.length && got < n; i++) {
    const chunk = chunks[which === 'head' ? i : chunks.length - 1 - i];
    const piece = which === 'head' ? chunk.subarray(0, n - got) : lastBytes(chunk, n - got);
    if (which === 'head') picked.push(piece);
    else picked.unshift(piece);
    got += piece.length;
  }
  return Buffer.concat(picked, got);
}

function lastBytes(b: Buffer, n: number): Buffer {
  return b.length <= n ? b : b.subarray(b.length - n);
}

function stripCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

/** A JSON-RPC id: what a response names to say which request it answers. */
export type JsonRpcId = string | number;

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `…,"id":7}` at the very end: how SDK servers serialize `{result, jsonrpc, id}`. */
const TRAILING_ID = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);
/** `{"jsonrpc":"2.0","id":7,"result"…` at the start: how other servers often serialize it. */
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID_VALUE}\s*,\s*"(?:result|error)"`);
/** A request or notification from the server starts with its method; never answer for those. */
const LEADING_METHOD = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;

/**
 * The id of the response an over-long line carried, read from the edges kept of it; undefined
 * when the edges do not show one reliably (then the line is dropped and that call runs into its
 * timeout instead of failing at once).
 */
export function responseIdOf(head: string, tail: string): JsonRpcId | undefined {
  if (LEADING_METHOD.test(head)) return undefined;
  const match = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail);
  if (!match) return undefined;
  const raw = match[1];
  if (raw.startsWith('"')) {
    try {
      const id: unknown = JSON.parse(raw);
      return typeof id === 'string' ? id : undefined;
    } catch {
      return undefined; // the string was cut by the edge: no reliable id
    }
  }
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}
