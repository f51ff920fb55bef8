import type { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { judgeStopSignal } from './lifecycle/domain/stop-signals';
import { LifecycleService } from './lifecycle/lifecycle.service';
import { ReloadService } from './reload/reload.service';

/**
 * Bound of `app.close()` after the drain: closing backends waits for every stdio process group to
 * exit, which the backends' own escalation to SIGKILL (2 s) keeps short; this only guards against
 * a hang. With the answer grace after a missed drain deadline (2 s) it stays under the chart's
 * `shutdown.extraGraceSeconds` (10), so the kubelet never has to SIGKILL the router.
 */
const CLOSE_TIMEOUT_MS = 6_000;

/** Whether a stop was asked for, and how to mark one that came another way (stdin closed). */
export interface StopState {
  readonly stopping: boolean;
  markStopping(): void;
}

/**
 * The process's signals, for the HTTP router (main.ts) and the stdio front end alike (architecture
 * §3.1 and "Shutdown"). SIGHUP reloads the config file unless a stop is under way; listened to as
 * soon as the app exists, since Node's default for SIGHUP would end the process. SIGTERM (Kubernetes)
 * or SIGINT (a terminal) calls `stop` once: signals that arrive together (Ctrl-C reaches the router
 * from the terminal and again through npm) are one request; a signal that comes later, while
 * stopping, exits at once, and the `exit` hook still kills the backends' groups.
 */
export function handleSignals(app: NestFastifyApplication, logger: Logger, stop: () => void): StopState {
  let firstAtMs: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const nowMs = performance.now();
    switch (judgeStopSignal(firstAtMs, nowMs)) {
      case 'joined':
        logger.log({ msg: 'signal joins the shutdown under way', signal });
        return;
      case 'exit_now':
        logger.warn({ msg: 'second signal: exiting now', signal });
        process.exit(1);
        return;
      case 'drain':
        firstAtMs = nowMs;
        logger.log({ msg: 'shutting down', signal });
        stop();
        return;
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => {
    if (firstAtMs === undefined) app.get(ReloadService).reload('signal');
  });
  return {
    get stopping() {
      return firstAtMs !== undefined;
    },
    markStopping() {
      firstAtMs ??= performance.now();
    },
  };
}

/**
 * Drains (readiness fails, new requests are refused, those in flight finish up to the deadline),
 * then `app.close()` runs every shutdown hook (the backends' kills every stdio process group) and
 * the process exits 0; 1 when closing hangs or fails.
 */
export async function shutDown(app: NestFastifyApplication, logger: Logger): Promise<void> {
  try {
    const drained = await app.get(LifecycleService).drain();
    // Every request has had its answer (or its grace); what is left is idle keep-alive connections,
    // or a request stuck below the call path: neither may hold the close up.
    if (!drained.idle) app.getHttpServer().closeAllConnections();
    const closeGuard = setTimeout(() => {
      logger.error({ msg: 'close did not finish in time: exiting', closeTimeoutMs: CLOSE_TIMEOUT_MS });
      process.exit(1);
    }, CLOSE_TIMEOUT_MS);
    await app.close();
    clearTimeout(closeGuard);
    logger.log({ msg: 'stopped' });
    process.exit(0);
  } catch (err) {
    logger.error({ msg: 'shutdown failed', error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
}
