import childProcess from 'node:child_process';
import net from 'node:net';

/**
 * Preloaded (`--require`) into every unit spec by scripts/test.mjs (`npm run test:unit`): a unit
 * spec starts no process and no server, so the unit run stays fast and immune to a loaded
 * machine. A spec that does either fails here, at the call, naming what to do instead. Only in
 * the runner's child processes (NODE_TEST_CONTEXT set): the runner itself starts the test files.
 */
const ADVICE =
  'a unit spec starts no process and no server: name the spec *.e2e-spec.ts, or list it in SOCKET_SPECS of scripts/test.mjs (it then runs with the e2e specs)';

function refuse(what: string): never {
  throw new Error(`${what}: ${ADVICE}`);
}

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const cp = childProcess as unknown as Record<string, unknown>;
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    cp[name] = (file: unknown) => refuse(`child_process.${name}(${JSON.stringify(file)})`);
  }
  net.Server.prototype.listen = function listen(): never {
    return refuse('a server listened on a socket');
  } as typeof net.Server.prototype.listen;
}
