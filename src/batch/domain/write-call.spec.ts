import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_CONFIRMATION_LENGTH } from '../../cursor/domain/confirmation-codec';
import { checkWriteCall, confirmationRefusal, needsConfirmation } from './write-call';

test('a write call takes name, server, arguments and confirm, and nothing else', () => {
  assert.deepEqual(checkWriteCall({ name: 'write_file', arguments: { path: 'a' } }), { ok: true, call: { name: 'write_file', arguments: { path: 'a' } } });
  assert.deepEqual(checkWriteCall({ name: 'write_file', server: 'files', confirm: 'tok' }), {
    ok: true,
    call: { name: 'write_file', server: 'files', arguments: {} },
    confirm: 'tok',
  });
  assert.deepEqual(checkWriteCall({ name: 'write_file', cursor: 'c' }), { ok: false, message: 'unknown field(s); allowed: name, server, arguments, confirm' });
});

test('confirm is a string of 1..2048 characters', () => {
  const message = `\`confirm\` must be a string of 1..${MAX_CONFIRMATION_LENGTH} characters`;
  for (const confirm of ['', 7, 'x'.repeat(MAX_CONFIRMATION_LENGTH + 1)]) assert.deepEqual(checkWriteCall({ name: 'w', confirm }), { ok: false, message });
  assert.equal(checkWriteCall({ name: 'w', confirm: 'x'.repeat(MAX_CONFIRMATION_LENGTH) }).ok, true);
});

test('the read call bounds apply to a write', () => {
  assert.deepEqual(checkWriteCall({ name: '' }), { ok: false, message: '`name` must be a string of 1..200 characters' });
  assert.deepEqual(checkWriteCall({ name: 'w', arguments: null }), { ok: false, message: '`arguments` must be an object' });
});

test('a destructive tool needs confirmation unless previewed with its dry-run parameter', () => {
  const schema = { type: 'object', properties: { path: {}, dryRun: {} } };
  assert.equal(needsConfirmation({ annotations: undefined, inputSchema: { type: 'object' } }, {}), true, 'MCP defaults destructiveHint to true');
  assert.equal(needsConfirmation({ annotations: { destructiveHint: false }, inputSchema: { type: 'object' } }, {}), false);
  assert.equal(needsConfirmation({ annotations: { destructiveHint: true }, inputSchema: schema }, { dryRun: true }), false);
  assert.equal(needsConfirmation({ annotations: { destructiveHint: true }, inputSchema: schema }, { dryRun: 'true' }), true);
  assert.equal(needsConfirmation({ annotations: { destructiveHint: true }, inputSchema: schema }, { dry_run: true }), true, 'only a parameter the tool has');
});

test('a refused confirmation is blocked, or confirmation_unavailable when the shared record is away', () => {
  const pair = (reason: Parameters<typeof confirmationRefusal>[0]) => {
    const err = confirmationRefusal(reason);
    return [err.code, err.message];
  };
  assert.deepEqual(pair('used'), ['blocked', 'the confirmation was already used; call without `confirm` for a new one']);
  assert.deepEqual(pair('expired'), ['blocked', 'the confirmation has expired; call without `confirm` for a new one']);
  assert.deepEqual(pair('mismatch'), ['blocked', 'the confirmation was issued for another caller, tool or arguments']);
  assert.deepEqual(pair('bad_signature'), ['blocked', 'the confirmation is not one this router issued']);
  assert.equal(pair('store_unavailable')[0], 'confirmation_unavailable');
  assert.match(pair('store_unavailable')[1], /^the confirmation could not be checked: the shared record of used confirmations \(Redis\) is unavailable/);
});
