import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Principal } from '../common/principal';
import { requestContext } from '../common/request-context';
import type { LifecycleService } from '../lifecycle/lifecycle.service';
import type { McpService } from '../mcp/mcp.service';
import { answerIdOf, errorLine, INTERNAL_ERROR, mirroredHeaders, SHUTTING_DOWN, waitsForBackends } from './domain/stdio-message';

/** Writes one JSON-RPC message as one line; resolves once it is handed to the OS (or the write failed). */
export type LineWriter = (line: string) => Promise<void>;

/**
 * MCP over stdio (spec: "Transports", stdio): one JSON-RPC message per line on stdin, one answer
 * per request as a line on stdout. Each message goes through the same endpoint as an HTTP POST
 * (`McpService`), so the surface and the seam behind it are the same; only who the caller is
 * differs: the principal given here, since no credential comes with a line. Requests are served
 * concurrently, as an HTTP client's are, and each is counted in the lifecycle like an /mcp
 * request, so a drain waits for its answer.
 */
export class StdioFrontEnd {
  private readonly logger = new Logger('Stdio');
  private reader?: Interface;

  constructor(
    private readonly mcp: McpService,
    private readonly lifecycle: LifecycleService,
    private readonly principal: Principal,
    private readonly writeLine: LineWriter,
    /** Settles once each backend's first connection attempt is over (BackendsService.start). */
    private readonly backendsStarted: Promise<unknown> = Promise.resolve(),
  ) {}

  /** Serves every line of `input`; resolves when the input ends or `stop` is called (answers may still be on their way). */
  async serve(input: NodeJS.ReadableStream): Promise<void> {
    const reader = createInterface({ input, crlfDelay: Infinity });
    this.reader = reader;
    for await (const line of reader) {
      if (line.trim() === '') continue;
      void this.answer(line);
    }
  }

  /** Reads no further line (a signal asked for shutdown); messages already read are still answered. */
  stop(): void {
    this.reader?.close();
  }

  private async answer(line: string): Promise<void> {
    const release = this.lifecycle.tryEnter();
    if (release === undefined) return this.refuse(line, SHUTTING_DOWN);
    try {
      if (waitsForBackends(line)) await this.backendsStarted;
      const answer = await requestContext.run({ requestId: randomUUID() }, () =>
        this.mcp.handlePost({ body: line, url: '/mcp', headers: mirroredHeaders(line), principal: this.principal }),
      );
      if (answer.body !== undefined) await this.writeLine(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    } catch (err) {
      // McpService answers every message it is given; this only keeps the one-answer rule through a defect.
      this.logger.error({ msg: 'stdio message failed', error: err instanceof Error ? err.message : String(err) });
      await this.refuse(line, INTERNAL_ERROR);
    } finally {
      release();
    }
  }

  private async refuse(line: string, error: { code: number; message: string }): Promise<void> {
    const id = answerIdOf(line);
    if (id !== undefined) await this.writeLine(errorLine(id, error));
  }
}
