import { Inject, Injectable } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { ConfigService } from '../config/config.service';
import { METRICS_PREFIX, METRICS_REGISTRY } from '../metrics/metrics.tokens';
import { RegistryService } from './registry.service';

/** The catalog's series in the router's registry (architecture §8), read at scrape time. */
@Injectable()
export class RegistryMetrics {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, configs: ConfigService, catalog: RegistryService) {
    new Gauge({
      name: METRICS_PREFIX + 'catalog_tools',
      help: 'Tools in the catalog per backend (the last catalog it delivered, kept while it is down).',
      labelNames: ['backend'],
      registers: [registry],
      collect: function (this: Gauge<'backend'>) {
        const sizes = catalog.sizes();
        // The backends configured now: one a reload removed leaves the series with its tools.
        this.reset();
        for (const backend of configs.current.backends) this.set({ backend: backend.name }, sizes.get(backend.name) ?? 0);
      },
    });
  }
}
