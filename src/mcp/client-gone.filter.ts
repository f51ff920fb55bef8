import { type ArgumentsHost, Catch, Logger } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { errnoCode } from '../common/thrown';

/**
 * A client that goes away while its body is still arriving is no fault of the router's, and there
 * is nobody left to answer: `debug`, not an `error` line with a stack for every dropped connection
 * (a crowd of them would flood the log). Everything else goes to Nest's own handling.
 */
@Catch()
export class ClientGoneFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('Http');

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (isClientGone(exception)) {
      this.logger.debug({ msg: 'client went away before its request was read' });
      return;
    }
    super.catch(exception, host);
  }
}

/** Node's error for a request body cut short by its client. */
function isClientGone(exception: unknown): boolean {
  return exception instanceof Error && errnoCode(exception) === 'ECONNRESET' && exception.message === 'aborted';
}
