import type { Redis } from 'ioredis';
import type { RedisStoreConfig } from '../config/config.types';
import { openRedisStore } from '../config/redis-connection';
import type { BucketRequest, StoreReservation } from './rate-limit.store';

/**
 * `reserveAll` of domain/token-bucket.ts as one Lua script, so the buckets of a call are read
 * and written in one atomic step on the Redis server, on its clock (`TIME`): every replica sees
 * the same time, whatever its own clock says. KEYS: the buckets. ARGV: cost, then rate, burst and
 * maxWaitMs per bucket. Each bucket is a hash {t: tokens, a: atMs}; a missing one is full. Answers
 * `{1, wait…}` (granted, waits in ms) or `{0, index, wait}` (refused; nothing written).
 * A granted bucket expires when it is full again (PEXPIRE), so idle callers' buckets vanish.
 */
export const RESERVE_ALL_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local cost = tonumber(ARGV[1])
local tokens, at, waits = {}, {}, {}
for i = 1, #KEYS do
  local rate = tonumber(ARGV[3 * i - 1])
  local burst = tonumber(ARGV[3 * i])
  local maxWait = tonumber(ARGV[3 * i + 1])
  local state = redis.call('HMGET', KEYS[i], 't', 'a')
  local t, a = tonumber(state[1]), tonumber(state[2])
  if t == nil or a == nil then
    t, a = burst, now
  elseif now > a then
    t, a = math.min(burst, t + (now - a) / 1000 * rate), now
  end
  local left = t - cost
  local wait = 0
  if left < 0 then wait = math.max(0, math.ceil((-left / rate) * 1000 - 1e-6)) end
  if wait > maxWait then return {0, i - 1, wait} end
  tokens[i], at[i], waits[i] = left, a, wait
end
for i = 1, #KEYS do
  local burst = tonumber(ARGV[3 * i])
  local rate = tonumber(ARGV[3 * i - 1])
  redis.call('HSET', KEYS[i], 't', string.format('%.17g', tokens[i]), 'a', string.format('%.17g', at[i]))
  redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil((burst - tokens[i]) / rate * 1000)) + 1000)
end
return {1, unpack(waits)}
`;

interface ReserveCommand {
  centralmcpReserveAll(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

/**
 * The Redis side of the shared store: one connection (ioredis), the script, nothing else. Every
 * failure rejects (never queues): the store decides what a call does without Redis.
 */
export class RedisBucketClient {
  private readonly redis: Redis & ReserveCommand;

  constructor(private readonly config: RedisStoreConfig) {
    const redis = openRedisStore(config);
    redis.defineCommand('centralmcpReserveAll', { lua: RESERVE_ALL_LUA });
    this.redis = redis as Redis & ReserveCommand;
  }

  /** The client's events, for the store to log connection changes (never the URL). */
  on(event: 'ready' | 'close', listener: () => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  on(event: 'ready' | 'close' | 'error', listener: (err: Error) => void): void {
    this.redis.on(event, listener);
  }

  /** True while commands can be sent (connected and ready). */
  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  connect(): Promise<void> {
    return this.redis.connect();
  }

  async reserveAll(requests: readonly BucketRequest[], cost: number): Promise<StoreReservation> {
    const keys = requests.map((r) => this.config.keyPrefix + r.key);
    const args = [cost, ...requests.flatMap((r) => [r.params.ratePerSecond, r.params.burst, r.maxWaitMs])];
    const reply = await this.redis.centralmcpReserveAll(keys.length, ...keys, ...args);
    if (reply[0] === 1) return { ok: true, waitsMs: reply.slice(1) };
    return { ok: false, reason: 'wait_too_long', index: reply[1], waitMs: reply[2] };
  }

  close(): void {
    this.redis.disconnect();
  }
}
