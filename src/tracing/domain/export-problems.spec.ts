import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportProblem } from './export-problems';

test('an endpoint that is down is one kind, named by its error code, without the stack', () => {
  const message = JSON.stringify({
    stack: 'Error: connect ECONNREFUSED 127.0.0.1:4318\n    at TCPConnectWrap.afterConnect (node:net:1611:16)',
    message: 'connect ECONNREFUSED 127.0.0.1:4318',
    errno: '-111',
    code: 'ECONNREFUSED',
    name: 'Error',
  });
  assert.deepEqual(exportProblem(message), { kind: 'ECONNREFUSED', detail: 'connect ECONNREFUSED 127.0.0.1:4318' });
});

test("a refused export is named by its HTTP status; the receiver's answer is left out", () => {
  const message = JSON.stringify({
    stack: 'OTLPExporterError: Bad Request\n    at …',
    message: 'Bad Request',
    code: '400',
    data: 'whatever the receiver said',
    name: 'OTLPExporterError',
  });
  assert.deepEqual(exportProblem(message), { kind: 'HTTP 400', detail: 'Bad Request' });
});

test('without a code the message is the kind, its counts taken out', () => {
  assert.deepEqual(exportProblem('Dropped 33440 spans because maxQueueSize reached'), {
    kind: 'Dropped # spans because maxQueueSize reached',
    detail: 'Dropped 33440 spans because maxQueueSize reached',
  });
  assert.equal(exportProblem('Dropped 12 spans because maxQueueSize reached').kind, exportProblem('Dropped 7 spans because maxQueueSize reached').kind);
  const retryable = JSON.stringify({
    stack: 'OTLPExporterError: Export failed with retryable status\n at …',
    message: 'Export failed with retryable status',
    name: 'OTLPExporterError',
  });
  assert.deepEqual(exportProblem(retryable), { kind: 'Export failed with retryable status', detail: 'Export failed with retryable status' });
});

test('text that only looks like JSON is plain text; a long message is cut', () => {
  assert.equal(exportProblem('{not json').kind, '{not json');
  assert.equal(exportProblem('x'.repeat(1000)).detail.length, 300);
});
