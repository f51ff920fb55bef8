import { Module } from '@nestjs/common';
import { EmbeddingsService } from './embeddings.service';
import { LEXICON, lexiconOrNone } from './lexicon';
import { RegistryService } from './registry.service';

@Module({
  providers: [{ provide: LEXICON, useFactory: () => lexiconOrNone() }, RegistryService, EmbeddingsService],
  exports: [RegistryService, EmbeddingsService],
})
export class RegistryModule {}
