import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { EmbeddingsMetrics } from './embeddings.metrics';
import { EmbeddingsService } from './embeddings.service';

/**
 * The embeddings endpoint's client and vectors, with the collectors of its series: the ranking
 * reads the vectors, the scrape reads the counters.
 */
@Module({
  imports: [MetricsModule],
  providers: [EmbeddingsService, EmbeddingsMetrics],
  exports: [EmbeddingsService],
})
export class EmbeddingsModule {}
