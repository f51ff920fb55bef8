import { Module } from '@nestjs/common';
import { EmbeddingsService } from './embeddings.service';
import { RegistryService } from './registry.service';

@Module({ providers: [RegistryService, EmbeddingsService], exports: [RegistryService, EmbeddingsService] })
export class RegistryModule {}
