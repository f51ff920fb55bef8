import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { GateModule } from '../gate/gate.module';
import { RegistryModule } from '../registry/registry.module';
import { TrustModule } from '../trust/trust.module';
import { DirectToolsService } from './direct-tools.service';

/** Backend tools published as tools of their own (`publish.mode`). */
@Module({
  imports: [RegistryModule, AccessModule, GateModule, TrustModule],
  providers: [DirectToolsService],
  exports: [DirectToolsService],
})
export class PublishModule {}
