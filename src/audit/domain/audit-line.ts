import type { CallStatus, Entrypoint } from '../../common/call-status';
import { saneRequestId } from '../../common/request-context';

/** One read call as the audit log sees it (architecture §10). Carries no argument values by construction. */
export interface AuditEvent {
  /** The principal's id (`anonymous` in auth mode none). */
  principal: string;
  entrypoint: Entrypoint;
  /** The backend that served or would have served the call; null when it never resolved. */
  backend: string | null;
  /** The tool name as called (it may not exist: unknown and denied calls are audited too). */
  tool: string;
  /** SHA-256 of the canonical arguments (the cursor binding's digest); null when none was computed. */
  argsDigest: string | null;
  status: CallStatus;
  durationMs: number;
  /** Bytes of the answer returned to the caller for this call. */
  responseBytes: number;
  correlationId?: string;
  /** The W3C `traceparent` header the client sent, when well-formed. */
  traceparent?: string;
  /** A write's confirmation (`invoke_tool`): the id of the token issued or used; never the token. */
  confirmationId?: string;
  /** The MCP protocol version the client's `tools/call` was served in (docs/protocol-eras.md). */
  protocolVersion?: string;
}

/** A request refused before any call was read: missing or bad credentials (401/400). */
export interface AuthFailureEvent {
  /** A closed reason from auth (`missing`, `expired`, `wrong_audience`, ...); never the credential. */
  reason: string;
  httpStatus: number;
  correlationId?: string;
  traceparent?: string;
}

/**
 * A change of trust in a tool (the trust pins): quarantined (no approved pin, or a definition changed
 * since approval), approved (pinned), or released (its definition is back to the approved one).
 */
export interface TrustAuditEvent {
  action: 'quarantine' | 'approve' | 'release';
  backend: string;
  tool: string;
  /** SHA-256 (hex) of the definition concerned. */
  sha256: string;
  /**
   * quarantine: `unpinned` or `changed`; approve: who approved, absent for a pin added to the file
   * by hand that names nobody.
   */
  reason?: string;
  /** The trust mode: in `warn` a quarantine is only reported, the tool stays callable. */
  mode: string;
}

/**
 * The level of an audit line, named as log lines name theirs (README "Logs"): audit lines share
 * stdout with the logs, and a collector that routes or filters by `level` must not drop them or
 * file them as unknown. A call is a record (`info`); what an operator should look at, a refused
 * credential or a quarantined tool, is `warn`.
 */
export type AuditLevel = 'info' | 'warn';

const MAX_TOOL_CHARS = 200;
const MAX_BACKEND_CHARS = 64;
/** A digest is short base64url or hex; anything else is a bug upstream that might carry values. */
const DIGEST = /^[A-Za-z0-9_-]{16,128}$/;
/** An MCP protocol version is a date; anything else is not written. */
const PROTOCOL_VERSION = /^\d{4}-\d{2}-\d{2}$/;
/** W3C Trace Context §3.2: version 00-fe, non-zero trace and parent ids, lower-case hex. */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The JSON line for one call. Every caller-influenced field is bounded or checked here, so a
 * hostile tool name, correlation id or traceparent can neither forge a field (JSON escapes it) nor
 * bloat the log, and a mistaken digest that is not a digest is dropped rather than written.
 */
export function auditLine(event: AuditEvent, timeMs: number): string {
  // One template, no intermediate object: this runs for every call. Strings a caller or a backend
  // names go through JSON.stringify (escaped); the rest are closed sets, checked patterns or
  // integers, which JSON writes as they are. The field order is JSON.stringify's of the same object.
  const { backend, argsDigest, confirmationId, protocolVersion, traceparent } = event;
  const correlationId = saneRequestId(event.correlationId);
  return (
    `{"time":"${new Date(timeMs).toISOString()}","level":"${'info' satisfies AuditLevel}",` +
    // A call through invoke_tool may change something: its lines are told apart from reads.
    `"kind":"${event.entrypoint === 'invoke_tool' ? 'write' : 'call'}","principal":${JSON.stringify(event.principal)},` +
    `"entrypoint":"${event.entrypoint}","backend":${backend === null ? 'null' : JSON.stringify(backend.slice(0, MAX_BACKEND_CHARS))},` +
    `"tool":${JSON.stringify(event.tool.slice(0, MAX_TOOL_CHARS))},` +
    `"argsDigest":${argsDigest !== null && DIGEST.test(argsDigest) ? `"${argsDigest}"` : 'null'},"status":"${event.status}",` +
    `"durationMs":${nonNegativeInt(event.durationMs)},"responseBytes":${nonNegativeInt(event.responseBytes)}` +
    (confirmationId !== undefined && DIGEST.test(confirmationId) ? `,"confirmationId":"${confirmationId}"` : '') +
    (protocolVersion !== undefined && PROTOCOL_VERSION.test(protocolVersion) ? `,"protocolVersion":"${protocolVersion}"` : '') +
    (correlationId ? `,"correlationId":"${correlationId}"` : '') +
    (traceparent !== undefined && TRACEPARENT.test(traceparent) ? `,"traceparent":"${traceparent}"` : '') +
    '}'
  );
}

/** The JSON line for a change of trust in a tool. */
export function trustLine(event: TrustAuditEvent, timeMs: number): string {
  return JSON.stringify({
    time: new Date(timeMs).toISOString(),
    level: (event.action === 'quarantine' ? 'warn' : 'info') satisfies AuditLevel,
    kind: 'trust',
    action: event.action,
    backend: event.backend.slice(0, MAX_BACKEND_CHARS),
    tool: event.tool.slice(0, MAX_TOOL_CHARS),
    sha256: /^[0-9a-f]{64}$/.test(event.sha256) ? event.sha256 : null,
    reason: event.reason?.slice(0, MAX_TOOL_CHARS),
    mode: event.mode,
  });
}

/**
 * A config reload that was applied: what it changed, by name only (backends, and sections of the
 * file), never a value. `trigger` is how it was asked for: `signal` (SIGHUP) or `file` (the watch).
 */
export interface ReloadAuditEvent {
  trigger: 'signal' | 'file';
  backendsAdded: readonly string[];
  backendsRemoved: readonly string[];
  backendsChanged: readonly string[];
  sectionsChanged: readonly string[];
  /** Changed in the file, applied only at the next start. */
  restartRequired: readonly string[];
}

/** The JSON line for an applied config reload. */
export function reloadLine(event: ReloadAuditEvent, timeMs: number): string {
  const names = (list: readonly string[]) => list.map((name) => name.slice(0, MAX_BACKEND_CHARS));
  return JSON.stringify({
    time: new Date(timeMs).toISOString(),
    kind: 'config_reload',
    trigger: event.trigger,
    backendsAdded: names(event.backendsAdded),
    backendsRemoved: names(event.backendsRemoved),
    backendsChanged: names(event.backendsChanged),
    sectionsChanged: names(event.sectionsChanged),
    restartRequired: names(event.restartRequired),
  });
}

/** The JSON line for a request refused at authentication. */
export function authFailureLine(event: AuthFailureEvent, timeMs: number): string {
  return JSON.stringify({
    time: new Date(timeMs).toISOString(),
    level: 'warn' satisfies AuditLevel,
    kind: 'auth_failure',
    reason: /^[a-z_]{1,40}$/.test(event.reason) ? event.reason : 'other',
    httpStatus: nonNegativeInt(event.httpStatus),
    ...traceFields(event),
  });
}

function traceFields(event: { correlationId?: string; traceparent?: string }): Record<string, string> {
  const correlationId = saneRequestId(event.correlationId);
  const traceparent = event.traceparent !== undefined && TRACEPARENT.test(event.traceparent) ? event.traceparent : undefined;
  return { ...(correlationId ? { correlationId } : {}), ...(traceparent ? { traceparent } : {}) };
}

function nonNegativeInt(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}
