import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS_PREFIX, METRICS_REGISTRY } from '../metrics/metrics.tokens';
import { LearningService } from './learning.service';

/**
 * Learning from use in the router's registry (architecture §8): the pairs recorded (a `find_tool`
 * request and the call that followed it) and the associations the ranking uses. Read from
 * LearningService at scrape time; only registered with learning on.
 */
@Injectable()
export class LearningMetrics {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, learning: LearningService) {
    if (!learning.enabled) return;
    const registers = [registry];
    let reported = 0;
    new Counter({
      name: METRICS_PREFIX + 'learning_pairs_total',
      help: 'find_tool requests paired with the tool the same principal then called successfully (learning from use).',
      registers,
      collect: function (this: Counter) {
        const { pairs } = learning.counts();
        this.inc(pairs - reported);
        reported = pairs;
      },
    });
    new Gauge({
      name: METRICS_PREFIX + 'learning_associations',
      help: 'Word-tool associations learned from use that the ranking uses (made by at least minPrincipals principals).',
      registers,
      collect: function (this: Gauge) {
        this.set(learning.counts().inUse);
      },
    });
  }
}
