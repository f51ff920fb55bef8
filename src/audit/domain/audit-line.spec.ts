import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditLine, authFailureLine, reloadLine, trustLine, type AuditEvent } from './audit-line';

/** A written line read back as the JSON object it is. */
const fields = (line: string) => JSON.parse(line) as Record<string, unknown>;

const DIGEST = 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg';
const event: AuditEvent = {
  principal: 'alice',
  entrypoint: 'batch',
  backend: 'files',
  tool: 'read_file',
  argsDigest: DIGEST,
  status: 'ok',
  durationMs: 12.6,
  responseBytes: 512,
  correlationId: 'req-1',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

test('one JSON line with the time, every call field, and nothing else', () => {
  const line = auditLine(event, Date.UTC(2025, 0, 2, 3, 4, 5, 6));
  assert.ok(!line.includes('\n'));
  assert.deepEqual(JSON.parse(line), {
    time: '2025-01-02T03:04:05.006Z',
    level: 'info',
    kind: 'call',
    principal: 'alice',
    entrypoint: 'batch',
    backend: 'files',
    tool: 'read_file',
    argsDigest: DIGEST,
    status: 'ok',
    durationMs: 13,
    responseBytes: 512,
    correlationId: 'req-1',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  });
});

test('caller-influenced fields cannot forge, bloat or smuggle values', () => {
  const hostile = fields(
    auditLine(
      {
        ...event,
        backend: null,
        tool: `x"\n{"principal":"root"}${'y'.repeat(1000)}`,
        argsDigest: '{"password":"hunter2"}',
        correlationId: 'has spaces and "quotes"',
        traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
        durationMs: Number.NaN,
        responseBytes: -5,
      },
      0,
    ),
  );
  assert.equal(hostile.principal, 'alice');
  assert.equal(hostile.backend, null);
  assert.equal((hostile.tool as string).length, 200);
  assert.equal(hostile.argsDigest, null, 'something that is not a digest is never written');
  assert.equal(hostile.correlationId, undefined);
  assert.equal(hostile.traceparent, undefined, 'an all-zero trace id is invalid (W3C Trace Context)');
  assert.equal(hostile.durationMs, 0);
  assert.equal(hostile.responseBytes, 0);
});

test('an authentication failure has a closed reason and no credential', () => {
  assert.deepEqual(JSON.parse(authFailureLine({ reason: 'expired', httpStatus: 401, correlationId: 'r2' }, 0)), {
    time: '1970-01-01T00:00:00.000Z',
    level: 'warn',
    kind: 'auth_failure',
    reason: 'expired',
    httpStatus: 401,
    correlationId: 'r2',
  });
  assert.equal(fields(authFailureLine({ reason: 'Bearer eyJhbGciOi...', httpStatus: 401 }, 0)).reason, 'other');
});

test('a call through invoke_tool is a `write` line carrying its confirmation id', () => {
  const line = fields(auditLine({ ...event, entrypoint: 'invoke_tool', status: 'confirmation_required', confirmationId: 'Zm9vYmFyYmF6cXV4cXV1eA' }, 0));
  assert.equal(line.kind, 'write');
  assert.equal(line.confirmationId, 'Zm9vYmFyYmF6cXV4cXV1eA');
  assert.equal(fields(auditLine({ ...event, entrypoint: 'invoke_tool', confirmationId: 'not an id' }, 0)).confirmationId, undefined);
  assert.equal(fields(auditLine(event, 0)).confirmationId, undefined);
});

test('a call line carries the protocol version the client used, and only a version', () => {
  assert.equal(fields(auditLine({ ...event, protocolVersion: '2026-07-28' }, 0)).protocolVersion, '2026-07-28');
  assert.equal(fields(auditLine({ ...event, protocolVersion: '2025-06-18"} {"x' }, 0)).protocolVersion, undefined);
  assert.equal(fields(auditLine(event, 0)).protocolVersion, undefined, 'a 2025 client that sent no version header');
});

test('every line has a level, as log lines do: calls at info, a refused credential and a quarantine at warn', () => {
  assert.equal(fields(auditLine(event, 0)).level, 'info');
  assert.equal(fields(auditLine({ ...event, status: 'blocked' }, 0)).level, 'info');
  assert.equal(fields(auditLine({ ...event, entrypoint: 'invoke_tool' }, 0)).level, 'info');
  assert.equal(fields(authFailureLine({ reason: 'missing', httpStatus: 401 }, 0)).level, 'warn');
  const trust = { backend: 'files', tool: 'read_file', sha256: 'a'.repeat(64), mode: 'enforce' };
  assert.equal(fields(trustLine({ ...trust, action: 'quarantine', reason: 'changed' }, 0)).level, 'warn');
  assert.equal(fields(trustLine({ ...trust, action: 'approve' }, 0)).level, 'info');
  assert.equal(fields(trustLine({ ...trust, action: 'release' }, 0)).level, 'info');
});

test('an applied reload is a `config_reload` line naming what changed, nothing more', () => {
  const line = fields(
    reloadLine(
      { trigger: 'signal', backendsAdded: ['b'], backendsRemoved: [], backendsChanged: ['c'], sectionsChanged: ['auth'], restartRequired: ['audit'] },
      0,
    ),
  );
  assert.deepEqual(line, {
    time: '1970-01-01T00:00:00.000Z',
    kind: 'config_reload',
    trigger: 'signal',
    backendsAdded: ['b'],
    backendsRemoved: [],
    backendsChanged: ['c'],
    sectionsChanged: ['auth'],
    restartRequired: ['audit'],
  });
});

test('a call line is byte for byte what JSON.stringify writes for its fields, hostile values included', () => {
  const reference = (e: AuditEvent, timeMs: number) =>
    JSON.stringify({
      time: new Date(timeMs).toISOString(),
      level: 'info',
      kind: e.entrypoint === 'invoke_tool' ? 'write' : 'call',
      principal: e.principal,
      entrypoint: e.entrypoint,
      backend: e.backend === null ? null : e.backend.slice(0, 64),
      tool: e.tool.slice(0, 200),
      argsDigest: e.argsDigest !== null && /^[A-Za-z0-9_-]{16,128}$/.test(e.argsDigest) ? e.argsDigest : null,
      status: e.status,
      durationMs: Number.isFinite(e.durationMs) && e.durationMs > 0 ? Math.round(e.durationMs) : 0,
      responseBytes: Number.isFinite(e.responseBytes) && e.responseBytes > 0 ? Math.round(e.responseBytes) : 0,
      ...(e.confirmationId !== undefined && /^[A-Za-z0-9_-]{16,128}$/.test(e.confirmationId) ? { confirmationId: e.confirmationId } : {}),
      ...(e.protocolVersion !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(e.protocolVersion) ? { protocolVersion: e.protocolVersion } : {}),
      ...(e.correlationId !== undefined && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(e.correlationId) ? { correlationId: e.correlationId } : {}),
      ...(e.traceparent === event.traceparent ? { traceparent: e.traceparent } : {}),
    });
  const events: AuditEvent[] = [
    event,
    { ...event, entrypoint: 'invoke_tool', confirmationId: DIGEST, protocolVersion: '2026-07-28', correlationId: undefined, traceparent: undefined },
    {
      ...event,
      principal: 'ünïcode "quoted" \\ \u2028 \u0000',
      backend: `b"${'k'.repeat(100)}`,
      tool: '\ud800 lone surrogate \n',
      argsDigest: null,
      status: 'blocked',
      durationMs: 1e12,
      responseBytes: Number.POSITIVE_INFINITY,
      confirmationId: 'not a digest!',
      protocolVersion: 'latest',
      correlationId: 'x'.repeat(200),
      traceparent: 'garbage',
    },
  ];
  for (const e of events) assert.equal(auditLine(e, 1_700_000_000_123), reference(e, 1_700_000_000_123));
});
