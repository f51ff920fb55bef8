import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmationResult } from './confirmation-answer';

test('asking for confirmation names the tool and the argument names, never their values, and is not an error', () => {
  const { answer, wire } = confirmationResult('write_file', 'files', ['path', 'content'], 'tok.sig', 120);
  assert.deepEqual(answer, { tool: 'write_file', server: 'files', status: 'confirmation_required' });
  const parsed = JSON.parse(wire) as { content: { type: string; text: string }[]; structuredContent: Record<string, unknown>; isError: boolean };
  assert.equal(parsed.isError, false);
  assert.deepEqual(parsed.structuredContent, {
    ok: false,
    tool: 'write_file',
    server: 'files',
    status: 'confirmation_required',
    summary: { tool: 'write_file', server: 'files', argument_names: ['path', 'content'] },
    message:
      'This tool may change or delete data. To run it, call invoke_tool again with the same name, server and ' +
      'arguments plus `confirm` set to `confirmation` (single use, within 120 s).',
    confirmation: 'tok.sig',
    confirmation_expires_in_seconds: 120,
  });
  assert.deepEqual(parsed.content, [{ type: 'text', text: JSON.stringify(parsed.structuredContent) }]);
});
