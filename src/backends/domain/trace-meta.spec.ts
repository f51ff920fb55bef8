import assert from 'node:assert/strict';
import { test } from 'node:test';
import { traceFields, withTraceMeta } from './trace-meta';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test('an untraced call keeps its _meta as it is, and sends no headers', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  assert.equal(withTraceMeta(meta, undefined), meta);
  assert.equal(withTraceMeta(undefined, undefined), undefined);
  assert.equal(withTraceMeta(meta, { context: {} }), meta);
  assert.equal(traceFields(undefined), undefined);
  assert.equal(traceFields({ context: {} }), undefined);
});

test('a traced call adds traceparent and tracestate beside the _meta it has, unprefixed', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const trace = { context: { traceparent: PARENT, tracestate: 'rojo=00f067aa0ba902b7' } };
  assert.deepEqual(withTraceMeta(meta, trace), { ...meta, traceparent: PARENT, tracestate: 'rojo=00f067aa0ba902b7' });
  assert.deepEqual(meta, { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }, 'the shared _meta is not changed');
  assert.deepEqual(withTraceMeta(undefined, { context: { traceparent: PARENT, tracestate: '' } }), { traceparent: PARENT });
  assert.deepEqual(traceFields(trace), { traceparent: PARENT, tracestate: 'rojo=00f067aa0ba902b7' });
});
