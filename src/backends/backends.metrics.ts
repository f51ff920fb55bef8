import { Inject, Injectable } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { BACKENDS_CONFIG } from '../config/config.tokens';
import type { BackendConfig } from '../config/config.types';
import { labelValues } from '../metrics/label-values';
import { METRICS_PREFIX, METRICS_REGISTRY } from '../metrics/metrics.tokens';
import { mirroredCounter } from '../metrics/mirrored-counter';
import { BackendsService } from './backends.service';
import type { BackendState } from './backends.types';

type Era = NonNullable<BackendState['era']>;
const ERAS = labelValues<Era>({ legacy: true, modern: true });

/**
 * The backends' series in the router's registry (architecture §8): up, protocol era and reconnects,
 * read from BackendsService at scrape time, so the numbers are never stale and nothing has to
 * push them.
 */
@Injectable()
export class BackendsMetrics {
  /** The era each backend was last met in, kept while a reconnect has not settled it again. */
  private readonly erasSeen = new Map<string, Era>();

  constructor(@Inject(METRICS_REGISTRY) registry: Registry, @Inject(BACKENDS_CONFIG) configs: BackendConfig[], backends: BackendsService) {
    const registers = [registry];
    new Gauge({
      name: METRICS_PREFIX + 'backend_up',
      help: '1 while the backend is connected and serving calls, else 0.',
      labelNames: ['backend'],
      registers,
      collect: function (this: Gauge<'backend'>) {
        // A backend a reload removed leaves the series.
        this.reset();
        for (const state of backends.states()) this.set({ backend: state.name }, state.status === 'up' ? 1 : 0);
      },
    });
    // Info-style: 1 on the series of the era the backend was last met in (docs/backend-eras.md),
    // 0 on the other; both 0 until a first connection settles it. Read at scrape time, so a
    // backend met in another era after a reconnect shows it at the next scrape.
    const eras: Gauge<'backend' | 'era'> = new Gauge({
      name: METRICS_PREFIX + 'backend_protocol_era',
      help: 'The MCP era the backend was last met in: 1 on era legacy (initialize, 2025) or modern (2026-07-28), 0 on the other; both 0 until known.',
      labelNames: ['backend', 'era'],
      registers,
      collect: () => {
        for (const state of backends.states()) {
          if (state.era !== undefined) this.erasSeen.set(state.name, state.era);
          const current = this.erasSeen.get(state.name);
          for (const era of ERAS) eras.set({ backend: state.name, era }, era === current ? 1 : 0);
        }
      },
    });
    mirroredCounter({
      name: METRICS_PREFIX + 'backend_restarts_total',
      help: 'Reconnect attempts of the backend since the router started (a stdio respawn counts one).',
      labelName: 'backend',
      zeroed: configs.map((c) => c.name),
      read: () => backends.states().map((state) => [state.name, state.restarts] as const),
      registers,
    });
  }
}
