import { Logger } from '@nestjs/common';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../common/clock';
import { errnoCode, messageOf } from '../common/thrown';
import type { LearningLimits } from './domain/associations';
import { parseLearnedFile, serializeLearned } from './domain/learned-file';
import { MemoryLearningStore } from './memory-learning.store';

/**
 * Associations in memory, written to a file after each change (one write at a time, the last
 * state always written) and read back at boot: what was learned survives a restart.
 */
export class FileLearningStore extends MemoryLearningStore {
  private readonly logger = new Logger('Learning');
  private writing: Promise<void> | undefined;
  private dirty = false;

  constructor(
    private readonly path: string,
    limits: LearningLimits,
    clock: Clock,
  ) {
    super(limits, clock);
  }

  override async open(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return;
      throw err;
    }
    const observations = parseLearnedFile(text);
    if (observations === undefined) {
      this.logger.warn(`${this.path}: not a learning file; starting from nothing (it is replaced at the first change)`);
      return;
    }
    this.associations.observe(observations);
    this.associations.prune(this.clock.now());
    super.changed(true);
  }

  override async close(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  protected override changed(inUse: boolean): void {
    super.changed(inUse);
    this.dirty = true;
    this.writing ??= this.writeOut();
  }

  private async writeOut(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const tmp = `${this.path}.tmp`;
        await mkdir(dirname(this.path), { recursive: true });
        await writeFile(tmp, serializeLearned(this.associations.observations()), { mode: 0o600 });
        await rename(tmp, this.path);
      }
    } catch (err) {
      this.logger.error(`${this.path}: could not write what was learned: ${messageOf(err)}`);
    } finally {
      this.writing = undefined;
    }
  }
}
