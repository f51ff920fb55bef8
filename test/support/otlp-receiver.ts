import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader';
import { waitFor } from './backend-processes';

/** An attribute value as OTLP carries it (arrays and maps are not used by the router). */
export type AttributeValue = string | number | boolean;

/** One span as the receiver decoded it: ids in lowercase hex, as W3C `traceparent` writes them. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** The resource's `service.name`. */
  service?: string;
}

/** A stand-in for an OpenTelemetry Collector: OTLP/HTTP traces, JSON or protobuf, on a local port. */
export interface OtlpReceiver {
  /** Base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it (spans arrive at `/v1/traces`). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** The content type of each export received. */
  contentTypes: string[];
  /** Resolves once `check` holds for the spans received so far. */
  waitFor(check: (spans: ReceivedSpan[]) => boolean, what: string, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(type);
      try {
        spans.push(...(type.startsWith('application/json') ? decodeJson(JSON.parse(body.toString('utf8')) as JsonRequest) : decodeProtobuf(body)));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        return;
      }
      // An empty ExportTraceServiceResponse: full success.
      if (type.startsWith('application/json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    waitFor: (check, what, ms = 30_000) => waitFor(() => check(spans), ms, what),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// ---- OTLP/JSON (opentelemetry-proto, "JSON Protobuf Encoding": ids as hex strings) ----

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: JsonKeyValue[];
  events?: { name: string; attributes?: JsonKeyValue[] }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}
interface JsonRequest {
  resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
}

function decodeJson(request: JsonRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const service = jsonAttributes(rs.resource?.attributes)['service.name'];
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s): ReceivedSpan => ({
        traceId: s.traceId.toLowerCase(),
        spanId: s.spanId.toLowerCase(),
        ...(s.parentSpanId ? { parentSpanId: s.parentSpanId.toLowerCase() } : {}),
        name: s.name,
        kind: s.kind ?? 0,
        attributes: jsonAttributes(s.attributes),
        events: (s.events ?? []).map((e) => ({ name: e.name, attributes: jsonAttributes(e.attributes) })),
        links: (s.links ?? []).map((l) => ({ traceId: l.traceId.toLowerCase(), spanId: l.spanId.toLowerCase() })),
        status: s.status?.code ?? 0,
        ...(typeof service === 'string' ? { service } : {}),
      })),
    );
  });
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

// ---- OTLP/protobuf (opentelemetry/proto/collector/trace/v1/trace_service.proto), read with the
// OpenTelemetry packages' own wire reader; field numbers from trace.proto and common.proto. ----

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

/** Each field of a message, in order: its number, wire type, and a reader positioned on its value. */
function* fields(buf: Uint8Array): Generator<{ field: number; wire: number; reader: ProtobufReader; buf: Uint8Array }> {
  const reader = new ProtobufReader(buf);
  while (!reader.isAtEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    const before = reader.pos;
    yield { field: fieldNumber, wire: wireType, reader, buf };
    // A field the consumer did not read is skipped.
    if (reader.pos === before) reader.skip(wireType);
  }
}

function decodeProtobuf(buf: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of fields(buf)) {
    if (rs.field !== 1 || rs.wire !== BYTES) continue;
    let service: string | undefined;
    const scopes: Uint8Array[] = [];
    for (const f of fields(rs.reader.readBytes())) {
      if (f.field === 1 && f.wire === BYTES) {
        const value = keyValues(f.reader.readBytes(), 1)['service.name'];
        if (typeof value === 'string') service = value;
      } else if (f.field === 2 && f.wire === BYTES) scopes.push(f.reader.readBytes());
    }
    for (const scope of scopes) {
      for (const f of fields(scope))
        if (f.field === 2 && f.wire === BYTES) spans.push({ ...span(f.reader.readBytes()), ...(service !== undefined ? { service } : {}) });
    }
  }
  return spans;
}

function span(buf: Uint8Array): ReceivedSpan {
  const s: ReceivedSpan = { traceId: '', spanId: '', name: '', kind: 0, attributes: {}, events: [], links: [], status: 0 };
  for (const f of fields(buf)) {
    if (f.field === 1 && f.wire === BYTES) s.traceId = hex(f.reader.readBytes());
    else if (f.field === 2 && f.wire === BYTES) s.spanId = hex(f.reader.readBytes());
    else if (f.field === 4 && f.wire === BYTES) {
      const parent = hex(f.reader.readBytes());
      if (parent !== '') s.parentSpanId = parent;
    } else if (f.field === 5 && f.wire === BYTES) s.name = f.reader.readString();
    else if (f.field === 6 && f.wire === VARINT) s.kind = f.reader.readVarint();
    else if (f.field === 9 && f.wire === BYTES) Object.assign(s.attributes, keyValue(f.reader.readBytes()));
    else if (f.field === 11 && f.wire === BYTES) s.events.push(event(f.reader.readBytes()));
    else if (f.field === 13 && f.wire === BYTES) s.links.push(link(f.reader.readBytes()));
    else if (f.field === 15 && f.wire === BYTES) {
      for (const g of fields(f.reader.readBytes())) if (g.field === 3 && g.wire === VARINT) s.status = g.reader.readVarint();
    }
  }
  return s;
}

function event(buf: Uint8Array): { name: string; attributes: Record<string, AttributeValue> } {
  const e = { name: '', attributes: {} as Record<string, AttributeValue> };
  for (const f of fields(buf)) {
    if (f.field === 2 && f.wire === BYTES) e.name = f.reader.readString();
    else if (f.field === 3 && f.wire === BYTES) Object.assign(e.attributes, keyValue(f.reader.readBytes()));
  }
  return e;
}

function link(buf: Uint8Array): { traceId: string; spanId: string } {
  const l = { traceId: '', spanId: '' };
  for (const f of fields(buf)) {
    if (f.field === 1 && f.wire === BYTES) l.traceId = hex(f.reader.readBytes());
    else if (f.field === 2 && f.wire === BYTES) l.spanId = hex(f.reader.readBytes());
  }
  return l;
}

/** The `KeyValue` entries held in field `field` of a message (a Resource's attributes are field 1). */
function keyValues(buf: Uint8Array, field: number): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const f of fields(buf)) if (f.field === field && f.wire === BYTES) Object.assign(out, keyValue(f.reader.readBytes()));
  return out;
}

/** One `KeyValue`: key (1) and `AnyValue` (2: string 1, bool 2, int 3, double 4). */
function keyValue(buf: Uint8Array): Record<string, AttributeValue> {
  let key = '';
  let value: AttributeValue | undefined;
  for (const f of fields(buf)) {
    if (f.field === 1 && f.wire === BYTES) key = f.reader.readString();
    else if (f.field === 2 && f.wire === BYTES) {
      for (const v of fields(f.reader.readBytes())) {
        if (v.field === 1 && v.wire === BYTES) value = v.reader.readString();
        else if (v.field === 2 && v.wire === VARINT) value = v.reader.readVarint() !== 0;
        else if (v.field === 3 && v.wire === VARINT) value = v.reader.readVarint();
        else if (v.field === 4 && v.wire === FIXED64) {
          value = new DataView(v.buf.buffer, v.buf.byteOffset + v.reader.pos, 8).getFloat64(0, true);
          v.reader.pos += 8;
        }
      }
    }
  }
  return value === undefined ? {} : { [key]: value };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
