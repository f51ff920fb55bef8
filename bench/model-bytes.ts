/**
 * The bytes a model receives (MCP `content`) and the bytes sent in all (the whole `tools/call`
 * result), for a 20 KB text file, a 25-entry batch and the tiny image, in the answer's form of
 * today and in the form before it (one text block holding the whole envelope as JSON). The
 * structured content did not change, so the earlier form is rebuilt from it byte for byte: the
 * same `{"content":[{"type":"text","text":JSON}],"structuredContent":…}` the router sent then.
 * Run: npm run bench:bytes
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { everythingBackend, filesBackend, rawToolCall, startRouter, tempDir, testConfig, type ToolResult } from '../test/support/router';

interface Row {
  what: string;
  textBefore: number;
  textNow: number;
  modelBefore: number;
  modelNow: number;
  wholeBefore: number;
  wholeNow: number;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** The text a model is given: the text blocks as the client decodes them (images are not text). */
const textBytes = (content: ToolResult['content']) => (content ?? []).reduce((n, b) => n + (b.type === 'text' ? Buffer.byteLength(b.text ?? '') : 0), 0);

function row(what: string, result: ToolResult, wholeNow: number): Row {
  const structured = result.structuredContent;
  const before = [{ type: 'text', text: JSON.stringify(structured) }];
  return {
    what,
    textBefore: textBytes(before),
    textNow: textBytes(result.content),
    modelBefore: bytes(before),
    modelNow: bytes(result.content),
    wholeBefore: bytes({ content: before, structuredContent: structured, isError: result.isError }),
    wholeNow,
  };
}

async function main(): Promise<void> {
  const dir = tempDir('centralmcp-bytes-');
  const line = 'The "quick" brown fox\tjumps over the lazy dog; C:\\path\\to\\file, café ✓\n';
  const text20k = line.repeat(Math.ceil(20_000 / Buffer.byteLength(line))).slice(0, 20_000);
  writeFileSync(join(dir, '20k.txt'), text20k);
  for (let i = 0; i < 25; i++) writeFileSync(join(dir, `note-${i}.txt`), `note ${i}: "status" ok\n`.repeat(40));
  const router = await startRouter(testConfig([filesBackend(dir), everythingBackend()], { logLevel: 'error' }));
  try {
    const rows: Row[] = [];
    const file = await rawToolCall(router, 'invoke_read_tool', { name: 'read_text_file', server: 'files', arguments: { path: join(dir, '20k.txt') } });
    rows.push(row('a 20 KB text file (invoke_read_tool)', file.result, file.bytes));
    const calls = Array.from({ length: 25 }, (_, i) => ({ name: 'read_text_file', server: 'files', arguments: { path: join(dir, `note-${i}.txt`) } }));
    const batch = await rawToolCall(router, 'invoke_read_tool_batch', { calls });
    rows.push(row('a batch of 25 reads of 1 KB files', batch.result, batch.bytes));
    const image = await rawToolCall(router, 'invoke_read_tool', { name: 'get-tiny-image', server: 'everything' });
    rows.push(row('get-tiny-image', image.result, image.bytes));
    const out = [
      '| answer | text a model reads, before | now | `content` as sent, before | now | whole result as sent, before | now |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.what} | ${[r.textBefore, r.textNow, r.modelBefore, r.modelNow, r.wholeBefore, r.wholeNow].map((n) => n.toLocaleString('en')).join(' | ')} |`,
      ),
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    await router.close();
  }
}

void main();
