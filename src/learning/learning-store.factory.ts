import type { Clock } from '../common/clock';
import type { DiscoveryConfig } from '../config/config.types';
import type { LearningLimits } from './domain/associations';
import { FileLearningStore } from './file-learning.store';
import type { LearningStore } from './learning.store';
import { MemoryLearningStore } from './memory-learning.store';
import { RedisLearningStore } from './redis-learning.store';

/** The store `discovery.learning.store` names, chosen once at boot; none with learning off. */
export function storeFor(discovery: DiscoveryConfig, clock: Clock): LearningStore | undefined {
  const config = discovery.learning;
  if (config === undefined) return undefined;
  const limits: LearningLimits = { minPrincipals: config.minPrincipals, halfLifeMs: config.halfLifeHours * 3_600_000, maxAssociations: config.maxAssociations };
  switch (config.store.kind) {
    case 'memory':
      return new MemoryLearningStore(limits, clock);
    case 'file':
      return new FileLearningStore(config.store.path, limits, clock);
    case 'redis':
      return new RedisLearningStore(config.store, limits, clock);
  }
}
