import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { BackendsModule } from '../backends/backends.module';
import { GateModule } from '../gate/gate.module';
import { LearningModule } from '../learning/learning.module';
import { RegistryModule } from '../registry/registry.module';
import { TrustModule } from '../trust/trust.module';
import { EmbeddingsModule } from './embeddings.module';
import { FindToolService } from './find-tool.service';
import { LEXICON, lexiconOrNone } from './lexicon';
import { ToolSearchService } from './tool-search.service';

/** `find_tool`: ranked search over the registry's catalog, reported with what a call would decide. */
@Module({
  imports: [RegistryModule, EmbeddingsModule, GateModule, AccessModule, BackendsModule, TrustModule, LearningModule],
  providers: [{ provide: LEXICON, useFactory: () => lexiconOrNone() }, ToolSearchService, FindToolService],
  exports: [FindToolService],
})
export class DiscoveryModule {}
