import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literalWords } from './literals';

test('a file name says its media type, from the IANA types', () => {
  assert.deepEqual(literalWords('load photo.jpg so I can see it'), ['file', 'image', 'jpeg']);
  assert.deepEqual(literalWords('play "song.mp3"'), ['file', 'audio']);
  assert.deepEqual(literalWords('open report.pdf.'), ['file', 'pdf']);
});

test('numbers, URLs, e-mail addresses, dates and paths are typed', () => {
  assert.deepEqual(literalWords('what is 12 plus 30.5?'), ['number']);
  assert.deepEqual(literalWords('fetch https://example.com/a?b=1'), ['url']);
  assert.deepEqual(literalWords('mail bob@example.com'), ['email']);
  assert.deepEqual(literalWords('events on 2026-12-01'), ['date']);
  assert.deepEqual(literalWords('list /var/log and ~/notes'), ['path', 'file']);
});

test('plain words imply nothing, and odd input never throws', () => {
  assert.deepEqual(literalWords('read a text file'), []);
  assert.deepEqual(literalWords(''), []);
  assert.doesNotThrow(() => literalWords('\u0000 ☃ .. ... / \\ @ @@ http:// 文件.png'));
});
