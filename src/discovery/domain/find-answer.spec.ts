import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyCatalogNote, quarantineNote, serverSummary, unknownServerMessage, writesOffNote } from './find-answer';

test("a server summary counts the caller's tools and names the first four", () => {
  const tools = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
  assert.deepEqual(serverSummary({ name: 'files', status: 'up' }, tools), { name: 'files', tools: 5, connected: true, summary: '5 tools: a, b, c, d, …' });
  assert.deepEqual(serverSummary({ name: 'one', status: 'down' }, [{ name: 'x' }]), { name: 'one', tools: 1, connected: false, summary: '1 tool: x' });
  assert.deepEqual(serverSummary({ name: 'new', status: 'connecting' }, []), { name: 'new', tools: 0, connected: false, summary: 'no tools known yet' });
});

test("an empty catalog says which servers are not connected, or that nothing is the caller's", () => {
  assert.equal(
    emptyCatalogNote([
      { name: 'a', status: 'down' },
      { name: 'b', status: 'connecting' },
    ]),
    'no tools are available: these servers are not connected: a (down), b (connecting); try again shortly',
  );
  assert.equal(emptyCatalogNote([]), 'no tools are available to you: the catalog holds no tool you may call');
});

test('an unknown server names the servers the caller may use, never the value sent', () => {
  assert.equal(unknownServerMessage(['files', 'docs']), '`server` names no server you may use; servers: files, docs');
  assert.equal(unknownServerMessage([]), '`server` names no server you may use, and no server has tools you may call');
});

test('the quarantine note counts tools per server, and is absent when none is held back', () => {
  assert.equal(quarantineNote([]), undefined);
  assert.equal(
    quarantineNote([{ name: 'flip', tools: 1 }]),
    '1 tool is quarantined by the trust pins until an operator approves its definition: flip (1); until then it cannot be found or called',
  );
  assert.match(
    quarantineNote([
      { name: 'a', tools: 2 },
      { name: 'b', tools: 3 },
    ])!,
    /^5 tools are quarantined .*their definitions: a \(2\), b \(3\);/,
  );
});

test('the writes note counts the tools held back, in the right number', () => {
  assert.equal(
    writesOffNote(1),
    '1 tool that changes things matched this query but is not offered: writes are off on this router, so only read-only tools can be called',
  );
  assert.match(writesOffNote(3), /^3 tools that change things matched this query but are not offered: writes are off/);
});
