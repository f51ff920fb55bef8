import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Clock } from '../common/clock';
import { messageOf } from '../common/thrown';
import type { RedisStoreConfig } from '../config/config.types';
import { openRedisStore } from '../config/redis-connection';
import { Associations, type LearningLimits, type Observation } from './domain/associations';
import type { LearningStore } from './learning.store';

/** How often a replica asks whether another one learned something: what it learned is used within this. */
const FOLLOW_MS = 1_000;

/** Separates the parts of a field name; no word, tool key or digest holds it. */
const SEP = '\u0001';

/**
 * Associations shared by every replica through Redis: one hash field per (word, tool, principal)
 * holding when and against which definition of the tool, and a version every change increments.
 * Each replica keeps the associations in memory for the ranking, and reads them all again when
 * the version moved (checked every second). Without Redis a replica keeps ranking with what it
 * knew, and what it learns meanwhile is lost.
 */
export class RedisLearningStore implements LearningStore {
  private readonly logger = new Logger('Learning');
  private readonly client: Redis;
  private known: Associations;
  private seen: string | null = null;
  private changes = 1;
  private timer: NodeJS.Timeout | undefined;
  private following: Promise<void> | undefined;
  private down = false;

  constructor(
    private readonly config: RedisStoreConfig,
    private readonly limits: LearningLimits,
    private readonly clock: Clock,
    client?: Redis,
  ) {
    this.client = client ?? openRedisStore(config);
    this.known = new Associations(limits);
    this.client.on('error', (err: Error) => this.markDown(err.message));
  }

  get associations(): Associations {
    return this.known;
  }

  get version(): number {
    return this.changes;
  }

  async open(): Promise<void> {
    try {
      await this.client.connect();
      await this.follow();
    } catch (err) {
      this.markDown(messageOf(err));
    }
    this.timer = setInterval(() => void (this.following ??= this.follow().finally(() => (this.following = undefined))), FOLLOW_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.following;
    this.client.disconnect();
  }

  async record(observations: readonly Observation[]): Promise<void> {
    if (observations.length === 0) return;
    if (this.known.observe(observations)) this.changes += 1;
    const fields: string[] = [];
    for (const o of observations) fields.push(fieldOf(o), `${o.atMs}${SEP}${o.definition}`);
    try {
      await this.client
        .multi()
        .hset(this.key('observations'), ...fields)
        .incr(this.key('version'))
        .exec();
    } catch (err) {
      this.markDown(messageOf(err));
    }
  }

  async forget(matches: (tool: string) => boolean): Promise<number> {
    const forgotten = this.known.forget(matches);
    if (forgotten > 0) this.changes += 1;
    try {
      const fields = (await this.client.hkeys(this.key('observations'))).filter((f) => matches(f.split(SEP)[1] ?? ''));
      if (fields.length > 0)
        await this.client
          .multi()
          .hdel(this.key('observations'), ...fields)
          .incr(this.key('version'))
          .exec();
    } catch (err) {
      this.markDown(messageOf(err));
    }
    return forgotten;
  }

  /** Reads every observation again when another replica (or this one) changed them. */
  private async follow(): Promise<void> {
    try {
      const version = await this.client.get(this.key('version'));
      if (version === this.seen) return;
      const raw = await this.client.hgetall(this.key('observations'));
      const observations: Observation[] = [];
      for (const [field, value] of Object.entries(raw)) {
        const [word, tool, principal] = field.split(SEP);
        const [at, definition] = value.split(SEP);
        if (word && tool && principal && at) observations.push({ word, tool, principal, definition: definition ?? '', atMs: Number(at) });
      }
      observations.sort((a, b) => a.atMs - b.atMs);
      const next = new Associations(this.limits);
      next.observe(observations);
      next.prune(this.clock.now());
      await this.dropForgotten(raw, next);
      this.known = next;
      this.seen = version;
      this.changes += 1;
      if (this.down) this.logger.log('learning store: Redis answers again');
      this.down = false;
    } catch (err) {
      this.markDown(messageOf(err));
    }
  }

  /** Fields decayed away or past the bound are deleted by whichever replica notices first. */
  private async dropForgotten(raw: Record<string, string>, kept: Associations): Promise<void> {
    const keep = new Set(kept.observations().map(fieldOf));
    const drop = Object.keys(raw).filter((f) => !keep.has(f));
    if (drop.length > 0) await this.client.hdel(this.key('observations'), ...drop);
  }

  private key(name: string): string {
    return `${this.config.keyPrefix}${name}`;
  }

  private markDown(reason: string): void {
    if (!this.down) this.logger.warn(`learning store: Redis does not answer (${reason}); ranking goes on with what this replica knows`);
    this.down = true;
  }
}

function fieldOf(o: Pick<Observation, 'word' | 'tool' | 'principal'>): string {
  return `${o.word}${SEP}${o.tool}${SEP}${o.principal}`;
}
