/**
 * What a response's head tells a client that reads one answer per request (RFC 9112): its status,
 * how its body is framed, and whether the connection may carry another request.
 */
export interface ResponseHead {
  status: number;
  /** The `content-type` header, '' when absent. */
  contentType: string;
  /** The declared `content-length`; undefined when absent or when the body is chunked. */
  contentLength: number | undefined;
  /** The connection may carry another request once this response has ended. */
  keepAlive: boolean;
  /** `Keep-Alive: timeout=N` in seconds, when the server announced one. */
  keepAliveSeconds: number | undefined;
}

/** Where a parsed response goes, in order: one head, body bytes, one end. */
export interface ResponseSink {
  onHead(head: ResponseHead): void;
  onBody(chunk: Buffer): void;
  onEnd(): void;
}

/** Bytes that are no HTTP/1.1 response; `code` names the rule they broke, like Node's parser errors. */
export class MalformedResponseError extends Error {
  readonly code = 'HPE_INVALID_RESPONSE';
  constructor(detail: string) {
    super(`malformed HTTP response: ${detail}`);
    this.name = 'MalformedResponseError';
  }
}

/** Node's default bound of a response head (`--max-http-header-size`): a server cannot make the client buffer more. */
export const MAX_HEAD_BYTES = 16 * 1024;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
  Done,
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |$)/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,15})[\t ]*(?:;.*)?$/;
const CRLF_LENGTH = 2;

/**
 * Incremental reader of one HTTP/1.1 response (RFC 9112): the head, then a body framed by
 * `content-length`, by chunked transfer coding, or by the end of the connection. Interim 1xx
 * responses are skipped. Bytes go in as they arrive, however they are split; the body comes out
 * as slices of them, never copied. Pure: bytes in, callbacks out.
 */
export class ResponseParser {
  private state = State.Head;
  /** Bytes of an unfinished head, chunk-size line or trailer section. */
  private pending: Buffer | undefined;
  /** Body bytes still due in this `content-length` body or chunk. */
  private remaining = 0;
  /** Bytes that came after the response: the connection cannot be reused. */
  trailing = false;

  constructor(private readonly sink: ResponseSink) {}

  /** The response has ended. */
  get done(): boolean {
    return this.state === State.Done;
  }

  /** Whether the body runs until the connection ends (neither length nor chunked). */
  get untilClose(): boolean {
    return this.state === State.UntilClose;
  }

  /** Feeds bytes in arrival order; throws MalformedResponseError on bytes that are not a response. */
  push(chunk: Buffer): void {
    let data = chunk;
    let at = 0;
    if (this.pending !== undefined) {
      data = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    while (at < data.length) {
      switch (this.state) {
        case State.Head:
          at = this.readHead(data, at);
          break;
        case State.Length:
        case State.ChunkData:
          at = this.readBody(data, at);
          break;
        case State.ChunkSize:
          at = this.readChunkSize(data, at);
          break;
        case State.ChunkEnd:
          at = this.readChunkEnd(data, at);
          break;
        case State.Trailers:
          at = this.readTrailers(data, at);
          break;
        case State.UntilClose:
          this.sink.onBody(at === 0 ? data : data.subarray(at));
          return;
        case State.Done:
          this.trailing = true;
          return;
      }
      if (at < 0) return;
    }
  }

  /** The connection ended: a body framed by it is complete; any other unfinished response is not. */
  end(): void {
    if (this.state !== State.UntilClose) return;
    this.state = State.Done;
    this.sink.onEnd();
  }

  /** Keeps the unread rest of `data` for the next push; -1 stops this push. */
  private wait(data: Buffer, at: number): number {
    if (data.length - at > MAX_HEAD_BYTES) throw new MalformedResponseError('head or chunk line too long');
    this.pending = data.subarray(at);
    return -1;
  }

  private readHead(data: Buffer, at: number): number {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end === -1) return this.wait(data, at);
    if (end - at > MAX_HEAD_BYTES) throw new MalformedResponseError('head too long');
    const lines = data.toString('latin1', at, end).split('\r\n');
    const status = STATUS_LINE.exec(lines[0]);
    if (!status) throw new MalformedResponseError('no status line');
    const code = Number(status[2]);
    const next = end + 4;
    // Interim responses (100 Continue, 103 Early Hints) precede the response itself.
    if (code >= 100 && code < 200 && code !== 101) return next;
    const head: ResponseHead = { status: code, contentType: '', contentLength: undefined, keepAlive: status[1] === '1', keepAliveSeconds: undefined };
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      if (colon <= 0) throw new MalformedResponseError('header line without a name');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-type') head.contentType = value;
      else if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (head.contentLength !== undefined && head.contentLength !== Number(value)))
          throw new MalformedResponseError('bad content-length');
        head.contentLength = Number(value);
      } else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'connection') head.keepAlive = connectionKeepsAlive(value, head.keepAlive);
      else if (name === 'keep-alive') head.keepAliveSeconds = keepAliveSeconds(value);
    }
    if (chunked) head.contentLength = undefined;
    this.sink.onHead(head);
    if (code === 204 || code === 304 || code === 101) return this.finish(next);
    if (chunked) this.state = State.ChunkSize;
    else if (head.contentLength !== undefined) {
      if (head.contentLength === 0) return this.finish(next);
      this.state = State.Length;
      this.remaining = head.contentLength;
    } else this.state = State.UntilClose;
    return next;
  }

  private readBody(data: Buffer, at: number): number {
    const take = Math.min(this.remaining, data.length - at);
    this.sink.onBody(at === 0 && take === data.length ? data : data.subarray(at, at + take));
    this.remaining -= take;
    if (this.remaining > 0) return at + take;
    if (this.state === State.ChunkData) {
      this.state = State.ChunkEnd;
      return at + take;
    }
    return this.finish(at + take);
  }

  private readChunkSize(data: Buffer, at: number): number {
    const nl = data.indexOf('\r\n', at, 'latin1');
    if (nl === -1) return this.wait(data, at);
    const size = CHUNK_SIZE.exec(data.toString('latin1', at, nl));
    if (!size) throw new MalformedResponseError('bad chunk size');
    this.remaining = parseInt(size[1], 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
    return nl + CRLF_LENGTH;
  }

  private readChunkEnd(data: Buffer, at: number): number {
    if (data.length - at < CRLF_LENGTH) return this.wait(data, at);
    if (data[at] !== 0x0d || data[at + 1] !== 0x0a) throw new MalformedResponseError('chunk not followed by CRLF');
    this.state = State.ChunkSize;
    return at + CRLF_LENGTH;
  }

  /** Trailer fields after the last chunk, up to an empty line: read past, not used. */
  private readTrailers(data: Buffer, at: number): number {
    const nl = data.indexOf('\r\n', at, 'latin1');
    if (nl === -1) return this.wait(data, at);
    return nl === at ? this.finish(nl + CRLF_LENGTH) : nl + CRLF_LENGTH;
  }

  private finish(at: number): number {
    this.state = State.Done;
    this.sink.onEnd();
    return at;
  }
}

/** `Connection` tokens: `close` ends the connection after this response, `keep-alive` keeps an HTTP/1.0 one. */
function connectionKeepsAlive(value: string, keepAlive: boolean): boolean {
  const tokens = value.toLowerCase().split(',');
  if (tokens.some((t) => t.trim() === 'close')) return false;
  return keepAlive || tokens.some((t) => t.trim() === 'keep-alive');
}

/** The `timeout` parameter of a `Keep-Alive` header (RFC 2068 §19.7.1.1), in seconds. */
function keepAliveSeconds(value: string): number | undefined {
  const timeout = /(?:^|[\s,;])timeout\s*=\s*(\d+)/i.exec(value);
  return timeout ? Number(timeout[1]) : undefined;
}
