import type { TracingConfig } from '../config/config.types';
import { NO_TRACING, type Tracing } from './tracing';

/**
 * The process's tracing. Without a configured endpoint the OpenTelemetry SDK is not even loaded
 * (its modules are required here, only when tracing is on), so a router that does not trace pays
 * nothing for the feature.
 */
export async function openTracing(config: TracingConfig | undefined): Promise<Tracing> {
  if (config === undefined) return NO_TRACING;
  const { OtelTracing } = await import('./otel-tracing.js');
  return new OtelTracing(config);
}
