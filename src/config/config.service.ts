import { Logger } from '@nestjs/common';
import { messageOf } from '../common/thrown';
import type { RouterConfig } from './config.types';
import type { ConfigChange } from './domain/reload-plan';

/** Called, in the turn of the reload, with the config in force from then on and what changed. */
export type ConfigListener = (config: RouterConfig, change: ConfigChange) => void;

/**
 * The config in force. At boot it is the config the slice tokens hold; a reload replaces it whole,
 * and every module that applies a reloadable section subscribes with `onReload` and swaps what it
 * compiled from it. The listeners run one after another in one turn, with no await, so no call sees
 * one module on the old config and another on the new.
 */
export class ConfigService {
  private readonly logger = new Logger(ConfigService.name);
  private config: RouterConfig;
  private readonly listeners: ConfigListener[] = [];

  constructor(initial: RouterConfig) {
    this.config = initial;
  }

  /** The config in force now. */
  get current(): RouterConfig {
    return this.config;
  }

  /** Subscribes to reloads; modules subscribe in their constructor, before any reload can run. */
  onReload(listener: ConfigListener): void {
    this.listeners.push(listener);
  }

  /** Makes `config` the config in force: a planned reload (see planReload), already validated whole. */
  apply(config: RouterConfig, change: ConfigChange): void {
    this.config = config;
    for (const listener of this.listeners) {
      try {
        listener(config, change);
      } catch (err) {
        // Not expected of a validated config; said loudly, and the other modules still apply theirs.
        this.logger.error({ msg: 'a module failed to apply the reloaded config', error: messageOf(err) });
      }
    }
  }
}
