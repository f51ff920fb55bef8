import { stopDescendantsOnExit } from './reaper';

/**
 * Preloaded (`--require`) into every e2e test file by scripts/test.mjs: the test file's process
 * kills whatever it started when it ends, also when the runner stops it at its timeout. Only in
 * the runner's child processes (NODE_TEST_CONTEXT set): the runner itself starts the test files
 * and ends with them.
 */
if (process.env.NODE_TEST_CONTEXT !== undefined) stopDescendantsOnExit();
