import type {
  ApiKeyDto,
  BackendDto,
  EmbeddingsDto,
  HttpBackendDto,
  JwtDto,
  LearningDto,
  PublishDto,
  ReadOnlyPolicyDto,
  RedisStoreDto,
  StdioBackendDto,
  StdioDto,
  TrustDto,
  WritesDto,
} from './config.schema';
import type { Defaults } from './domain/defaults';

/**
 * What the router assumes where the config file says nothing (architecture §3): one value per
 * field, next to no logic. The loaded types (`config.types.ts`) make exactly these fields required.
 */

/** A bucket's wait for a token when neither it nor the global bucket sets one (architecture §7). */
export const DEFAULT_MAX_WAIT_MS = 10_000;

export const BACKEND_DEFAULTS = { required: true, timeoutMs: 30_000 } satisfies Defaults<BackendDto>;
export const STDIO_BACKEND_DEFAULTS = { args: [], env: {} } satisfies Defaults<StdioBackendDto>;
export const HTTP_BACKEND_DEFAULTS = { headers: {} } satisfies Defaults<HttpBackendDto>;

export const READ_ONLY_POLICY_DEFAULTS = { allow: [], deny: [] } satisfies Defaults<ReadOnlyPolicyDto>;

/** The hash tag `{…}` in the key prefix puts every bucket in one Redis Cluster slot. */
export const REDIS_STORE_DEFAULTS = {
  keyPrefix: 'centralmcp-router:{rate-limit}:',
  connectTimeoutMs: 2_000,
  commandTimeoutMs: 250,
  fail: 'open',
  replicas: 1,
} satisfies Defaults<RedisStoreDto>;

export const API_KEY_DEFAULTS = { groups: [] } satisfies Defaults<ApiKeyDto>;

/** What most identity providers sign with and name their groups claim; all asymmetric, so no HS/RS confusion is possible. */
export const JWT_DEFAULTS = {
  groupsClaim: 'groups',
  algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
  clockToleranceSeconds: 30,
} satisfies Defaults<JwtDto>;

/** A query waits 2 s at most for its embedding; tool batches run in the background, so longer. */
export const EMBEDDINGS_DEFAULTS = { headers: {}, timeoutMs: 2000, batchTimeoutMs: 30_000, batchSize: 32 } satisfies Defaults<EmbeddingsDto>;

/** Learning from use is off unless enabled; three principals, two minutes, a week's half-life. */
export const LEARNING_DEFAULTS = {
  enabled: false,
  minPrincipals: 3,
  windowSeconds: 120,
  store: 'memory',
  halfLifeHours: 168,
  maxAssociations: 100_000,
} satisfies Defaults<Omit<LearningDto, 'path'>>;

/** Without a pins file trust is off; every backend is listed again every five minutes. */
export const TRUST_DEFAULTS = { mode: 'off', approveNewBackends: false, relistSeconds: 300 } satisfies Defaults<TrustDto>;

/** The write path is off unless enabled, and then allows nothing it is not told to. */
/** The stdio front end's caller: a principal with no groups unless configured. */
export const STDIO_DEFAULTS = { groups: [] } satisfies Defaults<StdioDto>;

export const WRITES_DEFAULTS = { enabled: false, allow: [], deny: [] } satisfies Defaults<WritesDto>;

/** Only the meta-tools, as before; 128 is the most tools several model APIs accept in one request. */
export const PUBLISH_DEFAULTS = { mode: 'meta', maxDirectTools: 128 } satisfies Defaults<PublishDto>;
