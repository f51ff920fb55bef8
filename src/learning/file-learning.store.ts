import { Logger } from '@nestjs/common';
import { unwatchFile, watchFile } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../common/clock';
import { errnoCode, messageOf } from '../common/thrown';
import type { LearningLimits } from './domain/associations';
import { parseLearnedFile, serializeLearned } from './domain/learned-file';
import { MemoryLearningStore } from './memory-learning.store';

/** How often the file is checked for a change made outside (`learning reset`). */
const WATCH_MS = 1_000;

/**
 * Associations in memory, written to a file after each change (one write at a time, the last
 * state always written) and read back at boot: what was learned survives a restart. A change
 * made by someone else (`centralmcp-router learning reset`) is read back within a second.
 */
export class FileLearningStore extends MemoryLearningStore {
  private readonly logger = new Logger('Learning');
  private writing: Promise<void> | undefined;
  private dirty = false;
  /** The text last read or written here: the file holding anything else was changed outside. */
  private known = '';
  private watching = false;

  constructor(
    private readonly path: string,
    limits: LearningLimits,
    clock: Clock,
  ) {
    super(limits, clock);
  }

  override async open(): Promise<void> {
    await this.readIn();
    this.watching = true;
    watchFile(this.path, { interval: WATCH_MS, persistent: false }, () => void this.readIn().catch((err: unknown) => this.logger.error(messageOf(err))));
  }

  override async close(): Promise<void> {
    if (this.watching) unwatchFile(this.path);
    this.watching = false;
    while (this.writing !== undefined) await this.writing;
  }

  /** Takes up the file's content when it is not what this store last read or wrote. */
  private async readIn(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return;
      throw err;
    }
    if (text === this.known || this.writing !== undefined) return;
    this.known = text;
    const observations = parseLearnedFile(text);
    if (observations === undefined) {
      this.logger.warn(`${this.path}: not a learning file; left aside (it is replaced at the next change)`);
      return;
    }
    this.associations.forget(() => true);
    this.associations.observe(observations);
    this.associations.prune(this.clock.now());
    super.changed(true);
  }

  protected override changed(reshaped: boolean): void {
    super.changed(reshaped);
    this.dirty = true;
    this.writing ??= this.writeOut();
  }

  private async writeOut(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const tmp = `${this.path}.tmp`;
        await mkdir(dirname(this.path), { recursive: true });
        const text = serializeLearned(this.associations.observations());
        this.known = text;
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, this.path);
      }
    } catch (err) {
      this.logger.error(`${this.path}: could not write what was learned: ${messageOf(err)}`);
    } finally {
      this.writing = undefined;
    }
  }
}
