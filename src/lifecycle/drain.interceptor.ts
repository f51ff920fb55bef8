import { type CallHandler, type ExecutionContext, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { finalize, type Observable, of } from 'rxjs';
import { LifecycleService } from './lifecycle.service';

/**
 * A client may retry this soon: by then readiness has taken this replica out of the Service, so
 * the retry lands elsewhere.
 */
const RETRY_AFTER_SECONDS = '1';

/** JSON-RPC "server error" range (spec §5.1), as the other /mcp edge errors use. */
const DRAINING_BODY = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: 'Service Unavailable: the router is shutting down; retry the request' },
} as const;

/**
 * Counts /mcp requests in flight for the drain and, once draining, refuses new ones with 503, a
 * JSON-RPC error body and `Retry-After`. `Connection: close` moves a keep-alive client off this
 * replica, so its next request opens a connection that the Service routes to a ready one.
 */
@Injectable()
export class DrainInterceptor implements NestInterceptor {
  private readonly logger = new Logger(DrainInterceptor.name);

  constructor(private readonly lifecycle: LifecycleService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const release = this.lifecycle.tryEnter();
    if (release) return next.handle().pipe(finalize(release));
    this.logger.debug({ msg: 'request refused: draining' });
    context
      .switchToHttp()
      .getResponse<FastifyReply>()
      .status(503)
      .header('retry-after', RETRY_AFTER_SECONDS)
      .header('connection', 'close')
      .header('content-type', 'application/json');
    return of(DRAINING_BODY);
  }
}
