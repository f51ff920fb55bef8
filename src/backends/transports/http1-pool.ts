import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { outsideRequest } from '../../common/request-context';
import { MalformedResponseError, type ResponseHead, ResponseParser, type ResponseSink } from '../domain/http-response';

export interface Http1PoolOptions {
  url: URL;
  /** Connections open at most; exchanges beyond wait, first come first served, until one is free. */
  maxSockets: number;
  /** An idle connection is closed after this long, or sooner when the server announced less. */
  idleMs: number;
}

/**
 * What an exchange tells the request it carries, each event naming the exchange (and through it
 * its `owner`): one set of handlers serves every exchange, so a request allocates no closures.
 */
export interface ExchangeEvents<T> {
  onHead(exchange: Exchange<T>, head: ResponseHead): void;
  /** Body bytes as they arrive: slices of the socket's chunks, never copied. */
  onBody(exchange: Exchange<T>, chunk: Buffer): void;
  onEnd(exchange: Exchange<T>): void;
  /**
   * The connection failed before the response ended. `staleReuse`: the connection had carried an
   * earlier exchange and no byte of this one's response came back, so the server may never have
   * read the request (it closed the idle connection as the request went out).
   */
  onError(exchange: Exchange<T>, err: Error, staleReuse: boolean): void;
  /** The exchange is over, its connection back in the pool or gone (or it was given up while waiting): once, last. */
  onClose(exchange: Exchange<T>): void;
}

/** The server closed the connection before the response ended: Node's client names it so. */
function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * Keep-alive HTTP/1.1 connections to one origin over `node:net` or `node:tls`, one request at a
 * time on each: what `node:http`'s Agent does for the router's POSTs, without the ClientRequest,
 * IncomingMessage and stream machinery around every request (BENCHMARKS.md "Backend POSTs on
 * sockets"). A request goes out as one preformatted write; its response is read by
 * `domain/http-response.ts`. The most recently freed connection is reused first (as the Agent's
 * `lifo` scheduling), so a quiet pool lets its surplus connections idle out.
 */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly waiting: Exchange<unknown>[] = [];
  private readonly connections = new Set<Connection>();
  private readonly host: string;
  private readonly port: number;
  private readonly secure: boolean;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** When the armed sweep fires (`performance.now()`); Infinity while none is armed. */
  private sweepDue = Number.POSITIVE_INFINITY;
  private readonly sweepBound = () => this.sweep();

  constructor(private readonly options: Http1PoolOptions) {
    const { url } = options;
    this.secure = url.protocol === 'https:';
    // A URL spells an IPv6 host in brackets; a socket wants it bare.
    this.host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port === '' ? (this.secure ? 443 : 80) : Number(url.port);
  }

  /** Sends `head` and `body` (UTF-8) on a free connection, a new one, or the first to free up. */
  send<T>(head: string, body: string, latin1Head: boolean, owner: T, events: ExchangeEvents<T>): Exchange<T> {
    const exchange = new Exchange<T>(this, head, body, latin1Head, owner, events);
    const idle = this.reusable();
    if (idle !== undefined) {
      idle.socket.ref();
      idle.start(exchange);
    } else if (this.connections.size < this.options.maxSockets) this.connect().start(exchange);
    else this.waiting.push(exchange);
    return exchange;
  }

  /** The most recently freed idle connection that can still carry a request. */
  private reusable(): Connection | undefined {
    let connection = this.idle.pop();
    // One the server ended, or that was closed, but whose close event is still to come.
    while (connection !== undefined && !connection.socket.writable) connection = this.idle.pop();
    return connection;
  }

  /** Closes every connection: exchanges on them fail; waiting ones go out on new connections. */
  close(): void {
    for (const connection of [...this.connections]) connection.socket.destroy();
  }

  /** A connection finished its exchange and may carry another. */
  release(connection: Connection, idleMs: number): void {
    const next = this.waiting.shift();
    if (next !== undefined) return connection.start(next);
    if (idleMs <= 0) return void connection.socket.destroy();
    const now = performance.now();
    connection.idleUntil = now + idleMs;
    // As the Agent's free sockets: an idle connection does not keep the process alive.
    connection.socket.unref();
    this.idle.push(connection);
    if (connection.idleUntil < this.sweepDue) this.arm(connection.idleUntil, now);
  }

  /** A connection closed: its place goes to the first waiting exchange. */
  closed(connection: Connection): void {
    this.connections.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
    const next = this.waiting.shift();
    if (next !== undefined) this.connect().start(next);
  }

  /** A waiting exchange was given up before it had a connection. */
  unqueue(exchange: Exchange<unknown>): void {
    const at = this.waiting.indexOf(exchange);
    if (at !== -1) this.waiting.splice(at, 1);
  }

  get idleMs(): number {
    return this.options.idleMs;
  }

  private connect(): Connection {
    // A connection serves every later request: it must not carry the request that opened it.
    const socket = outsideRequest(() =>
      this.secure
        ? tlsConnect({ host: this.host, port: this.port, ...(isIP(this.host) === 0 ? { servername: this.host } : {}) })
        : netConnect({ host: this.host, port: this.port }),
    );
    // As Node's Agent with keepAlive: no Nagle delay on a request, and TCP keep-alive probes.
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    const connection = new Connection(this, socket);
    this.connections.add(connection);
    return connection;
  }

  /** One timer for every idle connection, armed for the earliest to expire, never keeping the process up. */
  private arm(due: number, now: number): void {
    if (this.sweepTimer !== undefined) clearTimeout(this.sweepTimer);
    this.sweepDue = due;
    this.sweepTimer = outsideRequest(() => setTimeout(this.sweepBound, Math.max(1, Math.ceil(due - now))));
    this.sweepTimer.unref();
  }

  private sweep(): void {
    this.sweepTimer = undefined;
    this.sweepDue = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const connection of [...this.idle]) {
      if (connection.idleUntil <= now) {
        this.idle.splice(this.idle.indexOf(connection), 1);
        connection.socket.destroy();
      } else next = Math.min(next, connection.idleUntil);
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next, now);
  }
}

/** One pooled connection: its socket, the exchange it carries, and how many it carried before. */
class Connection {
  exchange: Exchange<unknown> | undefined;
  /** Exchanges this connection completed: a connection that carried one is a reused one. */
  served = 0;
  /** `performance.now()` past which an idle connection is closed. */
  idleUntil = 0;
  private error: Error | undefined;

  constructor(
    private readonly pool: Http1Pool,
    readonly socket: Socket,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', (err) => (this.error ??= err));
    socket.on('close', () => this.onClose());
  }

  start(exchange: Exchange<unknown>): void {
    this.exchange = exchange;
    exchange.attach(this, this.served > 0);
    const { socket } = this;
    if (!exchange.latin1Head) return void socket.write(exchange.head + exchange.body);
    socket.cork();
    socket.write(exchange.head, 'latin1');
    socket.write(exchange.body);
    socket.uncork();
  }

  private onData(chunk: Buffer): void {
    const exchange = this.exchange;
    // Bytes nobody asked for: the connection can no longer be trusted to frame a response.
    if (exchange === undefined) return void this.socket.destroy();
    try {
      exchange.parser.push(chunk);
    } catch (err) {
      if (!(err instanceof MalformedResponseError)) throw err;
      this.error = err;
      return void this.socket.destroy();
    }
    if (exchange.parser.done) this.finish(exchange);
  }

  /** The server ended the connection: the end of a body framed by it; otherwise the socket closes. */
  private onEnd(): void {
    const exchange = this.exchange;
    if (exchange === undefined || !exchange.parser.untilClose) return;
    exchange.parser.end();
    this.finish(exchange);
  }

  /** The response ended: the connection carries the next exchange, idles, or closes. */
  private finish(exchange: Exchange<unknown>): void {
    this.exchange = undefined;
    this.served++;
    const reusable = exchange.keepAlive && !exchange.destroyed && !exchange.parser.trailing && !this.socket.readableEnded;
    if (!reusable) this.socket.destroy();
    exchange.close();
    if (reusable) this.pool.release(this, exchange.idleMs(this.pool.idleMs));
  }

  private onClose(): void {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.pool.closed(this);
    if (exchange === undefined) return;
    exchange.fail(this.error ?? hangUp());
  }
}

/** One request on the pool and its response, read by a parser of its own; `owner` is the request it carries. */
export class Exchange<T> implements ResponseSink {
  readonly parser: ResponseParser = new ResponseParser(this);
  /** Given up by its owner: nothing more is reported. */
  destroyed = false;
  keepAlive = false;
  private connection: Connection | undefined;
  private reused = false;
  private headSeen = false;
  private over = false;
  private keepAliveSeconds: number | undefined;

  constructor(
    private readonly pool: Http1Pool,
    readonly head: string,
    readonly body: string,
    readonly latin1Head: boolean,
    readonly owner: T,
    private readonly events: ExchangeEvents<T>,
  ) {}

  attach(connection: Connection, reused: boolean): void {
    this.connection = connection;
    this.reused = reused;
  }

  /**
   * Tears the exchange down: its connection is closed, not kept for a response nobody waits for.
   * Once the response has ended there is nothing to tear down: its connection goes back to the
   * pool (as `node:http` frees a socket before the response's `end` listeners run).
   */
  destroy(): void {
    if (this.over || this.destroyed || this.parser.done) return;
    this.destroyed = true;
    if (this.connection !== undefined) this.connection.socket.destroy();
    else {
      this.pool.unqueue(this);
      this.close();
    }
  }

  /** How long the connection may idle after this response: the pool's bound, or less if the server said so. */
  idleMs(poolIdleMs: number): number {
    // As Node's Agent: a second less than the server's hint, so the client closes first.
    if (this.keepAliveSeconds === undefined) return poolIdleMs;
    return Math.min(poolIdleMs, this.keepAliveSeconds * 1000 - 1000);
  }

  onHead(head: ResponseHead): void {
    this.headSeen = true;
    this.keepAlive = head.keepAlive;
    this.keepAliveSeconds = head.keepAliveSeconds;
    if (!this.destroyed) this.events.onHead(this, head);
  }

  onBody(chunk: Buffer): void {
    if (!this.destroyed) this.events.onBody(this, chunk);
  }

  onEnd(): void {
    if (!this.destroyed) this.events.onEnd(this);
  }

  /** The connection closed before the response ended. */
  fail(err: Error): void {
    if (this.over) return;
    if (!this.destroyed) this.events.onError(this, err, this.reused && !this.headSeen);
    this.close();
  }

  close(): void {
    if (this.over) return;
    this.over = true;
    this.events.onClose(this);
  }
}
