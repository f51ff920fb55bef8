import { Inject, Injectable } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { METRICS_PREFIX, METRICS_REGISTRY } from '../metrics/metrics.tokens';
import { mirroredCounter } from '../metrics/mirrored-counter';
import { EMBEDDINGS_FAILURES } from './embeddings.client';
import { EmbeddingsService } from './embeddings.service';

/**
 * The embeddings endpoint's series in the router's registry (architecture §8), read from
 * EmbeddingsService at scrape time. Only with an endpoint configured: series of a feature that is
 * off are noise.
 */
@Injectable()
export class EmbeddingsMetrics {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, embeddings: EmbeddingsService) {
    if (!embeddings.enabled) return;
    const registers = [registry];
    mirroredCounter({
      name: METRICS_PREFIX + 'embeddings_failures_total',
      help: 'Embeddings endpoint answers not used (find_tool then answers from the lexical ranking), by reason: timeout, http_error, unreachable, invalid_response, dimension.',
      labelName: 'reason',
      zeroed: EMBEDDINGS_FAILURES,
      read: () => embeddings.stats().failures,
      registers,
    });
    new Gauge({
      name: METRICS_PREFIX + 'embeddings_tools',
      help: 'Catalog tools with an embedding (dense ranking covers these; the rest rank lexically).',
      registers,
      collect: function (this: Gauge) {
        this.set(embeddings.stats().embeddedTools);
      },
    });
  }
}
