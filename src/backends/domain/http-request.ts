/** A header name (RFC 9110 token), as Node's client checks it. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value may hold (Node's client check): tab, visible ASCII, space, obs-text. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** A head with obs-text (0x80–0xff) goes out as Latin-1, as Node's client writes heads. */
const OBS_TEXT = /[\x80-\xff]/;

/** A header a request cannot carry: a name that is no token, or a value with a control or non-Latin-1 character. */
export class InvalidHeaderError extends TypeError {
  readonly code = 'ERR_INVALID_HTTP_HEADER';
  constructor(name: string) {
    // The value is not echoed: configured headers carry credentials.
    super(`invalid HTTP header ${JSON.stringify(name.slice(0, 64))}`);
    this.name = 'InvalidHeaderError';
  }
}

/** Where a request goes: the request target and the `host` header (RFC 9112 §3.2). */
export interface RequestTarget {
  path: string;
  host: string;
}

/** The headers one request adds to the fixed ones; later groups win over earlier ones and over the fixed headers. */
export type HeaderGroup = Record<string, string> | undefined;

/**
 * The head of an HTTP/1.1 `POST` (RFC 9112), formatted as one string: the request line and the
 * headers every request to one backend carries (its configured ones, then `fixed`) are worked out
 * and checked once; each request adds its own headers and its `content-length`. A request's own
 * header wins over a fixed one of the same name, case aside, as a later key wins in an object
 * spread, and each name is sent once. Names and values are checked as Node's client checks them.
 * Pure: strings in, a string out.
 */
export class RequestHeadFormat {
  private readonly prefix: string;
  /** The fixed headers, lower-cased name to its line: a request's own header of the same name replaces it. */
  private readonly fixedLines: Map<string, string>;
  private readonly requestLine: string;
  /** A configured header that cannot be sent: every request fails with it, as Node's client would. */
  private readonly invalid: InvalidHeaderError | undefined;

  constructor(target: RequestTarget, configured: Record<string, string>, fixed: Record<string, string>) {
    this.requestLine = `POST ${target.path} HTTP/1.1\r\n`;
    const merged = new Map<string, string>([
      ['host', line('host', target.host)],
      ['connection', line('connection', 'keep-alive')],
    ]);
    let invalid: InvalidHeaderError | undefined;
    for (const group of [configured, fixed]) {
      for (const name in group) {
        if (!validHeader(name, group[name])) invalid ??= new InvalidHeaderError(name);
        merged.set(name.toLowerCase(), line(name, group[name]));
      }
    }
    // Each request states its own length.
    merged.delete('content-length');
    this.fixedLines = merged;
    this.invalid = invalid;
    this.prefix = this.requestLine + [...merged.values()].join('');
  }

  /** The whole head of one request whose body is `contentLength` bytes; throws InvalidHeaderError. */
  head(contentLength: number, a: HeaderGroup, b?: HeaderGroup, c?: HeaderGroup): string {
    if (this.invalid) throw this.invalid;
    let own = '';
    let replaces = false;
    for (const group of [a, b, c]) {
      if (group === undefined) continue;
      for (const name in group) {
        const value = group[name];
        if (!validHeader(name, value)) throw new InvalidHeaderError(name);
        if (this.fixedLines.has(name.toLowerCase())) replaces = true;
        own += line(name, value);
      }
    }
    const start = replaces ? this.replaced(a, b, c) : this.prefix + own;
    return `${start}content-length: ${contentLength}\r\n\r\n`;
  }

  /** Whether a head must go out as Latin-1 rather than in one UTF-8 write with its body. */
  static latin1(head: string): boolean {
    return OBS_TEXT.test(head);
  }

  /** The rare head where a request's own header replaces a fixed one: every name once, the last value. */
  private replaced(a: HeaderGroup, b: HeaderGroup, c: HeaderGroup): string {
    const lines = new Map(this.fixedLines);
    for (const group of [a, b, c]) for (const name in group) lines.set(name.toLowerCase(), line(name, group[name]));
    return this.requestLine + [...lines.values()].join('');
  }
}

function validHeader(name: string, value: string): boolean {
  return TOKEN.test(name) && typeof value === 'string' && !INVALID_VALUE.test(value);
}

function line(name: string, value: string): string {
  return `${name}: ${value}\r\n`;
}
