import type { TracingConfig } from '../config.types';

type Env = Readonly<Record<string, string | undefined>>;

/** The OTLP/HTTP encodings the router exports in; `http/protobuf` is the specification's default. */
const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** The samplers the OpenTelemetry SDK builds from `OTEL_TRACES_SAMPLER` (SDK environment variables). */
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];
/** `OTEL_BSP_*` variables and their least value. */
const BATCH_VARIABLES: readonly [string, number][] = [
  ['OTEL_BSP_SCHEDULE_DELAY', 0],
  ['OTEL_BSP_EXPORT_TIMEOUT', 0],
  ['OTEL_BSP_MAX_QUEUE_SIZE', 1],
  ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1],
];
/** The service name spans carry when `OTEL_SERVICE_NAME` is unset. */
export const DEFAULT_SERVICE_NAME = 'centralmcp-router';

/**
 * Whether and where the router exports traces, from the standard OpenTelemetry variables alone
 * (architecture §8.1): no traces endpoint, or `OTEL_SDK_DISABLED=true`, is no tracing at all
 * (undefined). The SDK reads these variables itself (sampler, batching, headers); they are checked
 * here only so that a value it would silently replace by a default is a boot error instead, as
 * every other setting of the router is. Nothing is checked while tracing is off.
 */
export function readTracingSettings(env: Env, problems: string[]): TracingConfig | undefined {
  if (text(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const endpoint = tracesEndpoint(env);
  if (endpoint === undefined) return undefined;
  const before = problems.length;
  if (!isHttpUrl(endpoint.url)) problems.push(`${endpoint.variable}: must be an http:// or https:// URL`);
  const protocolVariable = text(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocolText = text(env[protocolVariable]) ?? 'http/protobuf';
  const protocol = PROTOCOLS.find((p) => p === protocolText);
  if (protocol === undefined) problems.push(`${protocolVariable}: must be one of ${PROTOCOLS.join(', ')} (grpc is not supported)`);
  const sampler = text(env.OTEL_TRACES_SAMPLER);
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) problems.push(`OTEL_TRACES_SAMPLER: must be one of ${SAMPLERS.join(', ')}`);
  const ratio = text(env.OTEL_TRACES_SAMPLER_ARG);
  if (ratio !== undefined && (sampler === undefined || sampler.endsWith('traceidratio'))) {
    const n = Number(ratio);
    if (!Number.isFinite(n) || n < 0 || n > 1) problems.push('OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1');
  }
  for (const [variable, min] of BATCH_VARIABLES) {
    const raw = text(env[variable]);
    if (raw !== undefined && !(Number.isInteger(Number(raw)) && Number(raw) >= min)) problems.push(`${variable}: must be an integer of at least ${min}`);
  }
  if (problems.length > before || protocol === undefined) return undefined;
  return { endpoint: endpoint.url, protocol, serviceName: text(env.OTEL_SERVICE_NAME) ?? DEFAULT_SERVICE_NAME };
}

/**
 * The URL spans are POSTed to: the traces endpoint as given, or the base endpoint with
 * `v1/traces` appended (OTLP exporter specification, "Endpoint URLs for OTLP/HTTP").
 */
function tracesEndpoint(env: Env): { url: string; variable: string } | undefined {
  const traces = text(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (traces !== undefined) return { url: traces, variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' };
  const base = text(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base === undefined) return undefined;
  return { url: `${base.endsWith('/') ? base : `${base}/`}v1/traces`, variable: 'OTEL_EXPORTER_OTLP_ENDPOINT' };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A variable's trimmed value; empty counts as unset, as the SDK reads it. */
function text(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
