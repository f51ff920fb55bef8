import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { currentRequestId } from '../common/request-context';

/**
 * Nest's JSON console logger, plus the correlation id of the request a line was written for
 * (`requestId`), so every line of one request can be found with one query.
 */
export class CorrelatedLogger extends ConsoleLogger {
  protected override getJsonLogObject(
    message: unknown,
    options: { context: string; logLevel: LogLevel; writeStreamType?: 'stdout' | 'stderr'; errorStack?: unknown },
  ): ReturnType<ConsoleLogger['getJsonLogObject']> & { requestId?: string } {
    const line = super.getJsonLogObject(message, options);
    const requestId = currentRequestId();
    return requestId === undefined ? line : { ...line, requestId };
  }
}
