import { Logger } from '@nestjs/common';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { outsideRequest } from '../common/request-context';
import { errnoCode, messageOf } from '../common/thrown';

/**
 * Events of one save come in bursts (an editor's write and rename, Kubernetes' swap of `..data`):
 * one reload after the burst settles.
 */
const SETTLE_MS = 100;

/**
 * Watches the config file for a change of its content, and calls `changed` once per new content.
 *
 * It watches the file's folder, not the file: an editor replaces the file by a rename, and a
 * Kubernetes ConfigMap volume changes by swapping its `..data` symlink, so the file's own inode
 * never changes and a watch on it would go quiet after the first swap. Any event in the folder
 * rereads the file, and only a text that differs from the last one seen counts.
 */
export class ConfigWatch {
  private readonly logger = new Logger(ConfigWatch.name);
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastText: string | undefined;

  constructor(
    private readonly path: string,
    private readonly changed: () => void,
  ) {}

  start(): void {
    this.lastText = this.read();
    try {
      // Not persistent: a watch must never keep a stopping router alive.
      this.watcher = outsideRequest(() => watch(dirname(this.path), { persistent: false }, () => this.schedule()));
      this.watcher.on('error', (err) => this.logger.warn({ msg: 'config watch failed: reload with SIGHUP', error: messageOf(err) }));
      this.logger.log({ msg: 'watching the config file', file: basename(this.path) });
    } catch (err) {
      this.logger.warn({ msg: 'config watch failed: reload with SIGHUP', error: errnoCode(err) ?? messageOf(err) });
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** The content a reload has just read (SIGHUP): the watch then takes no second reload of it. */
  seen(): void {
    this.lastText = this.read();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const text = this.read();
      // Gone for a moment (between an unlink and a rename): the next event brings it back.
      if (text === undefined || text === this.lastText) return;
      this.lastText = text;
      this.changed();
    }, SETTLE_MS);
  }

  private read(): string | undefined {
    try {
      return readFileSync(this.path, 'utf8');
    } catch {
      // Not an error to report: unreadable now is what the next event or the reload will say.
      return undefined;
    }
  }
}
