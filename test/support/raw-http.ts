import { connect, type Socket } from 'node:net';

/** What came back on a raw connection: the status line's code, the header block, the body text. */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** The server closed the connection (rather than the test giving up). */
  closedByServer: boolean;
}

/**
 * A request written byte by byte on its own TCP connection, for what an HTTP client library never
 * sends (repeated headers, a body that stops half-way, headers that never end). Resolves with the
 * first complete answer, or with what arrived once the server closed the connection; rejects when
 * neither happens within `giveUpMs` (a server that waits forever fails the test instead of hanging).
 */
export function rawRequest(port: number, text: string, options: RawOptions = {}): Promise<RawAnswer> {
  return rawConnection(port, (socket) => socket.write(text), options);
}

export interface RawOptions {
  /** Resolve only once the server has closed the connection (default: at the first complete answer). */
  untilClose?: boolean;
  giveUpMs?: number;
}

/** As `rawRequest`, with the writing left to `write` (which may keep writing slowly). */
export function rawConnection(port: number, write: (socket: Socket) => void, { untilClose = false, giveUpMs = 60_000 }: RawOptions = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      const answer = parse(received, closedByServer);
      if (!closedByServer && (!answer || untilClose)) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer ?? { status: 0, head: '', body: '', closedByServer });
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no answer and no close within ${giveUpMs} ms; received: ${received.toString('utf8').slice(0, 200)}`));
    }, giveUpMs);
    socket.on('connect', () => write(socket));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      finish(false);
    });
    // The server may close while the test is still writing: that is an answer too.
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

/** A complete answer (headers and a Content-Length body), or undefined while one is still arriving. */
function parse(bytes: Buffer, closed: boolean): RawAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const head = bytes.subarray(0, end).toString('latin1');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const body = bytes.subarray(end + 4);
  if (length && body.length < Number(length[1]) && !closed) return undefined;
  return { status: Number(head.split(' ')[1]), head, body: body.toString('utf8'), closedByServer: closed };
}

/** An HTTP/1.1 request's text with the given header lines (repeats allowed) and body. */
export function requestText(path: string, headerLines: string[], body = ''): string {
  return [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headerLines, '', body].join('\r\n');
}
