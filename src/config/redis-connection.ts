import type { Redis } from 'ioredis';
import type { RedisStoreConfig } from './config.types';

/**
 * A connection to the shared Redis store, on the rules every user of it needs: without Redis a
 * call is decided now (by its own failure policy), never held in a queue until Redis returns; a
 * command lost with its connection is never sent twice; reconnecting goes on, at most every 2 s.
 * Connects only when asked (`connect()`).
 *
 * ioredis is loaded here, on first use: a router without Redis never loads it (about 2 MB of heap
 * and code it would hold for nothing).
 */
export function openRedisStore(config: RedisStoreConfig): Redis {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when Redis is configured
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  return new RedisClient(config.url, {
    lazyConnect: true,
    connectTimeout: config.connectTimeoutMs,
    commandTimeout: config.commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
  });
}
