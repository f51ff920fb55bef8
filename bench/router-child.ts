/**
 * The router for the benchmarks: configured as main.ts configures it (CENTRALMCP_ROUTER_* and the
 * config file), plus IPC messages for the harness: `heap` (answered with the post-GC heap; run with
 * --expose-gc), and `profile-start` / `profile-stop:<file>` (the V8 CPU profiler through the
 * inspector, the same profile `--cpu-prof` writes, but of the load only, not of the boot).
 * SIGINT/SIGTERM close the app and exit 0. Its young generation: held while it boots and released
 * once its backends started, as main.ts does (src/young-generation.ts), or kept at 2 MiB for the
 * life of the process with BENCH_YOUNG_GENERATION=fixed (young-generation-choice.ts).
 */
import '../src/young-generation';
import './young-generation-choice';
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createApp } from '../src/app.factory';
import { BackendsService } from '../src/backends/backends.service';
import { loadConfigFromEnvironment } from '../src/config/config.module';
import { releaseYoungGeneration } from '../src/young-generation';
import { youngGenerationFixed } from './young-generation-choice';

async function main(): Promise<void> {
  const config = loadConfigFromEnvironment();
  const app = await createApp(config);
  await app.listen(config.http.port, config.http.host);
  await app.get(BackendsService).start();
  if (!youngGenerationFixed) releaseYoungGeneration();
  const gc = (globalThis as { gc?: () => void }).gc;
  const session = new Session();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  process.on('message', (message) => {
    if (message === 'heap') {
      for (let i = 0; i < 3; i++) gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      process.send?.({ heapUsed, rss });
    } else if (message === 'profile-start') {
      session.connect();
      void post('Profiler.enable')
        .then(() => post('Profiler.setSamplingInterval', { interval: 500 }))
        .then(() => post('Profiler.start'))
        .then(() => process.send?.({ profiling: true }));
    } else if (typeof message === 'string' && message.startsWith('profile-stop:')) {
      void post('Profiler.stop').then((result) => {
        writeFileSync(message.slice('profile-stop:'.length), JSON.stringify((result as { profile: unknown }).profile));
        session.disconnect();
        process.send?.({ profiled: true });
      });
    }
  });
  const stop = () => {
    void app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.send?.({ listening: config.http.port });
}

void main();
