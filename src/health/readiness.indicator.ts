import { Injectable, Logger } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { BackendsService } from '../backends/backends.service';
import { LifecycleService } from '../lifecycle/lifecycle.service';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { RegistryService } from '../registry/registry.service';
import { readiness } from './domain/readiness';

/**
 * The router's readiness as terminus results, one key per backend plus `catalog`, `lifecycle`
 * and `rateLimitStore`. Logs each change of verdict once, instead of terminus's error line on
 * every failed probe (a kubelet probes every few seconds through an outage).
 */
@Injectable()
export class ReadinessIndicator {
  private readonly logger = new Logger(ReadinessIndicator.name);
  private lastNotReady: string | undefined;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly backends: BackendsService,
    private readonly registry: RegistryService,
    private readonly lifecycle: LifecycleService,
    private readonly rateLimits: RateLimitService,
  ) {}

  check(): HealthIndicatorResult {
    const entries = readiness(this.backends.states(), this.registry.sizes(), this.lifecycle.draining, this.rateLimits.storeStatus());
    const notReady = entries.filter((e) => !e.ready).map((e) => e.key);
    this.logChange(notReady.join(', '));
    const result: HealthIndicatorResult = {};
    for (const entry of entries) {
      const session = this.indicators.check(entry.key);
      Object.assign(result, entry.ready ? session.up(entry.detail) : session.down(entry.detail));
    }
    return result;
  }

  private logChange(notReady: string): void {
    if (notReady === (this.lastNotReady ?? '')) return;
    if (notReady === '') this.logger.log({ msg: 'ready' });
    else this.logger.warn({ msg: 'not ready', failing: notReady });
    this.lastNotReady = notReady;
  }
}
