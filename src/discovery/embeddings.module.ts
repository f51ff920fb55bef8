import { Module } from '@nestjs/common';
import { EmbeddingsService } from './embeddings.service';

/**
 * The embeddings endpoint's client and vectors, on their own so that metrics can read their
 * counters without importing what `find_tool` needs (the gate, access, trust).
 */
@Module({
  providers: [EmbeddingsService],
  exports: [EmbeddingsService],
})
export class EmbeddingsModule {}
