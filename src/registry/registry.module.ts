import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { EmbeddingsMetrics } from './embeddings.metrics';
import { EmbeddingsService } from './embeddings.service';
import { LEXICON, lexiconOrNone } from './lexicon';
import { RegistryMetrics } from './registry.metrics';
import { RegistryService } from './registry.service';

@Module({
  imports: [MetricsModule],
  providers: [{ provide: LEXICON, useFactory: () => lexiconOrNone() }, RegistryService, EmbeddingsService, RegistryMetrics, EmbeddingsMetrics],
  exports: [RegistryService, EmbeddingsService],
})
export class RegistryModule {}
