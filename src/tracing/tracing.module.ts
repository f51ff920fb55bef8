import { Global, Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { TRACING, type Tracing } from './tracing';

/** Exports the spans still queued when the router stops (after the drain, so the last calls' spans go too). */
@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  constructor(@Inject(TRACING) private readonly tracing: Tracing) {}

  async onApplicationShutdown(): Promise<void> {
    await this.tracing.shutdown();
  }
}

/**
 * Provides the process's `Tracing`, built before Nest (the logger needs it for its first line).
 * Global: the endpoint, the dispatch seam and discovery all open spans.
 */
@Global()
@Module({})
export class TracingModule {
  static forRoot(tracing: Tracing): DynamicModule {
    return {
      module: TracingModule,
      providers: [{ provide: TRACING, useValue: tracing }, TracingShutdown],
      exports: [TRACING],
    };
  }
}
