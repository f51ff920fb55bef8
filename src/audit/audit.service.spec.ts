import 'reflect-metadata';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Test } from '@nestjs/testing';
import { tempDir, testConfig } from '../../test/support/router';
import { CLOCK } from '../common/clock';
import { ConfigError } from '../config/config.errors';
import { ConfigModule } from '../config/config.module';
import type { AuditConfig } from '../config/config.types';
import { AuditModule } from './audit.module';
import { AuditService } from './audit.service';
import { AUDIT_SINK, type AuditSink } from './audit.sink';
import type { AuditEvent } from './domain/audit-line';

const SILENT = { log() {}, error() {}, warn() {} };

/** A written line read back as the JSON object it is. */
const fields = (line: string) => JSON.parse(line) as Record<string, unknown>;

const CALL: AuditEvent = {
  principal: 'alice',
  entrypoint: 'invoke_read_tool',
  backend: 'files',
  tool: 'read_file',
  argsDigest: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
  status: 'ok',
  durationMs: 5,
  responseBytes: 100,
};

async function appWith(audit: AuditConfig, sink?: AuditSink) {
  let builder = Test.createTestingModule({ imports: [ConfigModule.forRoot(testConfig([], { audit })), AuditModule] })
    // The failure tests make the service log errors on purpose; keep the test output readable.
    .setLogger(SILENT)
    .overrideProvider(CLOCK)
    .useValue({ now: () => Date.UTC(2025, 5, 1) });
  if (sink) builder = builder.overrideProvider(AUDIT_SINK).useValue(sink);
  const moduleRef = await builder.compile();
  return { moduleRef, audit: moduleRef.get(AuditService) };
}

test('a file sink appends one JSON line per call and flushes them at shutdown', async () => {
  const path = join(tempDir(), 'audit.jsonl');
  writeFileSync(path, '{"earlier":"line"}\n');
  const { moduleRef, audit } = await appWith({ sink: 'file', path });
  for (let i = 0; i < 500; i++) audit.record({ ...CALL, responseBytes: i, correlationId: `req-${i}` });
  audit.recordAuthFailure({ reason: 'missing', httpStatus: 401 });
  await moduleRef.close();
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, 502);
  assert.deepEqual(JSON.parse(lines[0]), { earlier: 'line' }, 'appends, never truncates');
  assert.deepEqual(JSON.parse(lines[1]), { time: '2025-06-01T00:00:00.000Z', level: 'info', kind: 'call', ...CALL, responseBytes: 0, correlationId: 'req-0' });
  assert.equal(fields(lines[500]).responseBytes, 499);
  assert.equal(fields(lines[501]).kind, 'auth_failure');
  assert.equal(statSync(path).mode & 0o777, 0o644 & 0o777, 'an existing file keeps its permissions');
});

test('a new audit file is readable by its owner only', async () => {
  const path = join(tempDir(), 'new.jsonl');
  const { moduleRef, audit } = await appWith({ sink: 'file', path });
  audit.record(CALL);
  await moduleRef.close();
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(readFileSync(path, 'utf8').split('\n').length, 2);
});

test('an audit path that cannot be opened stops the boot, naming audit.path', async () => {
  const dir = tempDir();
  await assert.rejects(appWith({ sink: 'file', path: join(dir, 'missing-dir', 'a.jsonl') }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /audit\.path: cannot open .* \(ENOENT\)/);
    return true;
  });
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o500);
    await assert.rejects(appWith({ sink: 'file', path: join(dir, 'a.jsonl') }), /audit\.path: cannot open .* \(EACCES\)/);
  }
});

test('a failing sink never throws into a call', async () => {
  let closed = false;
  const broken: AuditSink = {
    write: () => {
      throw new Error('disk full');
    },
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
  const { moduleRef, audit } = await appWith({ sink: 'stdout' }, broken);
  assert.doesNotThrow(() => audit.record(CALL));
  assert.doesNotThrow(() => broken.onError?.(new Error('EIO')), 'asynchronous failures are reported, not thrown');
  await moduleRef.close();
  assert.equal(closed, true);
});

test('a line recorded after shutdown is reported, not written to a closed file', async () => {
  const path = join(tempDir(), 'late.jsonl');
  const { moduleRef, audit } = await appWith({ sink: 'file', path });
  await moduleRef.close();
  assert.doesNotThrow(() => audit.record(CALL));
  assert.equal(readFileSync(path, 'utf8'), '');
});

test('the lines of one event-loop turn reach the sink in one write, in order', async () => {
  const writes: string[] = [];
  const recording: AuditSink = { write: (text) => void writes.push(text), close: () => Promise.resolve() };
  const { moduleRef, audit } = await appWith({ sink: 'stdout' }, recording);
  for (let i = 0; i < 3; i++) audit.record({ ...CALL, responseBytes: i });
  assert.equal(writes.length, 0, 'nothing is written inside the turn');
  await new Promise((resolve) => setImmediate(resolve));
  audit.record({ ...CALL, responseBytes: 3 });
  await moduleRef.close();
  assert.equal(writes.length, 2, 'one write per turn; shutdown flushes the last');
  assert.deepEqual(
    writes[0].split('\n').map((l) => fields(l).responseBytes),
    [0, 1, 2],
  );
  assert.equal(fields(writes[1]).responseBytes, 3);
});
