import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AuditService } from '../audit/audit.service';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { messageOf } from '../common/thrown';
import { ConfigError } from '../config/config.errors';
import { ConfigService } from '../config/config.service';
import { CONFIG_LOADER } from '../config/config.tokens';
import type { RouterConfig } from '../config/config.types';
import { planReload } from '../config/domain/reload-plan';
import { METRICS_PREFIX, METRICS_REGISTRY } from '../metrics/metrics.tokens';
import { ConfigWatch } from '../config/config-watch';

/** How a reload was asked for: SIGHUP, or a change of the watched file. */
export type ReloadTrigger = 'signal' | 'file';
/** A reload's outcome; doubles as the `outcome` label. */
export type ReloadOutcome = 'ok' | 'failed';
const OUTCOMES: readonly ReloadOutcome[] = ['ok', 'failed'];

/**
 * Reloads the config file without a restart (architecture §3.1): on SIGHUP, and
 * on a change of the file when `CENTRALMCP_ROUTER_WATCH_CONFIG` is on. The new file is loaded and
 * validated whole, exactly as at boot; an invalid one changes nothing (the running config stays,
 * its problems are logged, readiness is untouched). A valid one is applied in one turn through
 * ConfigService, whose subscribers swap what they compiled; it is audited by name, never by value.
 */
@Injectable()
export class ReloadService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReloadService.name);
  private readonly reloads: Counter<'outcome'>;
  private readonly lastSuccess: Gauge;
  private watch: ConfigWatch | undefined;

  constructor(
    private readonly configs: ConfigService,
    @Inject(CONFIG_LOADER) private readonly load: () => RouterConfig,
    private readonly audit: AuditService,
    @Inject(METRICS_REGISTRY) registry: Registry,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    const registers = [registry];
    this.reloads = new Counter({
      name: METRICS_PREFIX + 'config_reloads_total',
      help: 'Config reloads (SIGHUP or a change of the watched file) by outcome: ok (applied) or failed (invalid: nothing changed).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of OUTCOMES) this.reloads.inc({ outcome }, 0);
    this.lastSuccess = new Gauge({
      name: METRICS_PREFIX + 'config_last_reload_success_timestamp_seconds',
      help: 'When the config in force was loaded: at boot, then at each applied reload (Unix seconds).',
      registers,
    });
    // The boot's load is the first success, as Prometheus' own gauge of this name counts it.
    this.lastSuccess.set(clock.now() / 1000);
  }

  onApplicationBootstrap(): void {
    const source = this.configs.current.source;
    if (!source?.watch) return;
    this.watch = new ConfigWatch(source.path, () => this.reload('file'));
    this.watch.start();
  }

  onApplicationShutdown(): void {
    this.watch?.stop();
  }

  /**
   * Loads the config file again and applies it, or changes nothing when it is invalid. Synchronous:
   * nothing else runs between the validation and the last module's swap. Backends then connect
   * and drain in the background.
   */
  reload(trigger: ReloadTrigger): ReloadOutcome {
    if (this.configs.current.source === undefined) {
      // A config built in code (tests) has no file to read again.
      this.logger.warn({ msg: 'config reload ignored: this router was not started from a config file', trigger });
      return 'failed';
    }
    this.watch?.seen();
    let loaded: RouterConfig;
    try {
      loaded = this.load();
    } catch (err) {
      const problems = err instanceof ConfigError ? err.problems : [messageOf(err)];
      this.reloads.inc({ outcome: 'failed' });
      // The messages a boot would print for this file, each once: the operator fixes the file and reloads again.
      this.logger.error({ msg: 'config reload failed: the running config stays', trigger, problems });
      return 'failed';
    }
    const { config, change } = planReload(this.configs.current, loaded);
    this.configs.apply(config, change);
    this.reloads.inc({ outcome: 'ok' });
    this.lastSuccess.set(this.clock.now() / 1000);
    this.audit.recordReload({ trigger, ...change });
    this.logger.log({ msg: 'config reloaded', trigger, ...change });
    if (change.restartRequired.length > 0) {
      this.logger.warn({ msg: 'config changes that apply only at the next start', sections: change.restartRequired });
    }
    return 'ok';
  }
}
