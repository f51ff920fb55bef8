import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directConfirmHint, instructionsFor, resumeHint } from './surface-text';

test('the instructions name what each mode publishes', () => {
  assert.match(instructionsFor('meta', false), /find_tool/);
  assert.doesNotMatch(instructionsFor('meta', false), /invoke_tool|__/);
  assert.match(instructionsFor('meta', true), /invoke_tool/);
  assert.match(instructionsFor('both', false), /find_tool.*<server>__<tool>/);
  assert.doesNotMatch(instructionsFor('direct', false), /find_tool|confirm/);
  assert.match(instructionsFor('direct', true), /confirmation_required/);
});

test('the resume hint names the tool and server, quoted, and nothing else of the call', () => {
  assert.equal(
    resumeHint('read "x"', 'files'),
    'To get the next part, call invoke_read_tool with name "read \\"x\\"", server "files", the same arguments (under `arguments`) and `cursor` set to next_cursor.',
  );
  assert.equal(directConfirmHint('files__write_file', 'confirm'), 'call files__write_file again with the same arguments plus `confirm`');
});
