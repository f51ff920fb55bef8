import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROUTER_MAIN, tempDir } from './support/router';

test('a wrong config stops the process at boot with the field named', () => {
  const file = join(tempDir(), 'bad.yaml');
  writeFileSync(
    file,
    'backends:\n  files:\n    transport: stdio\n    args: [x]\n    timeoutMs: -1\n' + 'discovery:\n  embeddings:\n    url: ollama:11434\n    timeoutMs: 0\n',
  );
  const run = spawnSync(process.execPath, [ROUTER_MAIN], {
    env: { PATH: process.env.PATH, CENTRALMCP_ROUTER_CONFIG: file, CENTRALMCP_ROUTER_PORT: '0' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 78, run.stderr);
  assert.match(run.stderr, /backends\.files\.command/);
  assert.match(run.stderr, /backends\.files\.timeoutMs/);
  for (const field of ['url', 'model', 'timeoutMs']) assert.match(run.stderr, new RegExp(`discovery\\.embeddings\\.${field}`));
});
