import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guardRequest } from './request-guard';

const loopback = { listenHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [] };

test('on a loopback address, loopback Host names pass with or without a port', () => {
  for (const host of ['localhost:8010', '127.0.0.1:8010', '[::1]:8010', 'localhost']) {
    assert.doesNotThrow(() => guardRequest({ host }, loopback), host);
  }
});

test('on a loopback address, a rebound name is refused', () => {
  assert.throws(() => guardRequest({ host: 'evil.example:8010' }, loopback), { code: 'forbidden_host' });
});

test('a present Origin must be in the allow-list, `null` included', () => {
  assert.throws(() => guardRequest({ host: 'localhost', origin: 'https://evil.example' }, loopback), { code: 'forbidden_origin' });
  assert.throws(() => guardRequest({ host: 'localhost', origin: 'null' }, loopback), { code: 'forbidden_origin' });
  const allowed = { ...loopback, allowedOrigins: ['https://app.example'] };
  assert.doesNotThrow(() => guardRequest({ host: 'localhost', origin: 'https://app.example' }, allowed));
});

test('on a loopback address, loopback origins pass; look-alikes do not', () => {
  for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8010', 'https://[::1]', 'http://LOCALHOST']) {
    assert.doesNotThrow(() => guardRequest({ host: 'localhost', origin }, loopback), origin);
  }
  for (const origin of ['http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'file://', 'http://localhost:3000/path']) {
    assert.throws(() => guardRequest({ host: 'localhost', origin }, loopback), { code: 'forbidden_origin' }, origin);
  }
  const cluster = { listenHost: '0.0.0.0', allowedHosts: [], allowedOrigins: [] };
  assert.throws(() => guardRequest({ host: 'router', origin: 'http://localhost:3000' }, cluster), { code: 'forbidden_origin' });
});

test('elsewhere any Host passes unless a list is set', () => {
  const cluster = { listenHost: '0.0.0.0', allowedHosts: [], allowedOrigins: [] };
  assert.doesNotThrow(() => guardRequest({ host: 'router.ns.svc:8010' }, cluster));
  const listed = { ...cluster, allowedHosts: ['router.example'] };
  assert.doesNotThrow(() => guardRequest({ host: 'router.example:443' }, listed));
  assert.throws(() => guardRequest({ host: 'other.example' }, listed), { code: 'forbidden_host' });
});
