import { Inject, Injectable } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { METRICS_PREFIX, METRICS_REGISTRY } from '../metrics/metrics.tokens';
import { mirroredCounter } from '../metrics/mirrored-counter';
import { RateLimitService } from './rate-limit.service';

const FALLBACK_OUTCOMES = ['local', 'refused'] as const;

/**
 * The rate-limit store's series in the router's registry (architecture §8): whether it answers (the
 * memory store always does), and what happened to the calls decided without it. Read from
 * RateLimitService at scrape time.
 */
@Injectable()
export class RateLimitMetrics {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, rateLimits: RateLimitService) {
    const registers = [registry];
    new Gauge({
      name: METRICS_PREFIX + 'rate_limit_store_up',
      help: '1 while the rate-limit store answers (memory: always); 0 while Redis is unreachable and the failure policy decides.',
      labelNames: ['store'],
      registers,
      collect: function (this: Gauge<'store'>) {
        const status = rateLimits.storeStatus();
        this.set({ store: status.store }, status.up ? 1 : 0);
      },
    });
    mirroredCounter({
      name: METRICS_PREFIX + 'rate_limit_store_fallbacks_total',
      help: 'Calls decided without the shared rate-limit store: local (fail open, the replica share) or refused (fail closed).',
      labelName: 'outcome',
      zeroed: FALLBACK_OUTCOMES,
      read: () => {
        const { fallbacks } = rateLimits.storeStatus();
        return FALLBACK_OUTCOMES.map((outcome) => [outcome, fallbacks[outcome]] as const);
      },
      registers,
    });
  }
}
