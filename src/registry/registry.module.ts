import { Module } from '@nestjs/common';
import { LEXICON, lexiconOrNone } from './lexicon';
import { RegistryService } from './registry.service';

@Module({
  providers: [{ provide: LEXICON, useFactory: () => lexiconOrNone() }, RegistryService],
  exports: [RegistryService],
})
export class RegistryModule {}
