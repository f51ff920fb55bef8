import { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { LifecycleService } from './lifecycle.service';

/**
 * The answer to an /mcp request that arrives while the router drains: 503 with a JSON-RPC error
 * (the "server error" range, spec §5.1, as the other /mcp edge errors use) and `Retry-After`. A
 * client may retry this soon: by then readiness has taken this replica out of the Service, so the
 * retry lands elsewhere. `Connection: close` moves a keep-alive client off this replica, so its next
 * request opens a connection that the Service routes to a ready one.
 */
export const DRAINING_ANSWER = {
  status: 503,
  headers: { 'retry-after': '1', connection: 'close' },
  body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable: the router is shutting down; retry the request"}}',
} as const;

const MCP_PATH = /^\/mcp(\?|$)/;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Ends this request's count in flight now (idempotent); null when it is not counted. For a
     * stream a client keeps open: it ends itself when draining begins, so it must not hold the
     * drain up, and a client that leaves it ends the response without any hook seeing it.
     */
    leaveInFlight: (() => void) | null;
  }
}

/**
 * Counts GET and DELETE /mcp requests in flight for the drain and, once draining, refuses new ones
 * with DRAINING_ANSWER. POST /mcp does the same below Fastify (mcp/mcp-post.ts).
 *
 * Fastify hooks rather than a Nest interceptor: an interceptor wraps every request in rxjs and
 * async-resource bindings, which measured about 50 µs of CPU per call on the hot route
 * (BENCHMARKS.md, item 5).
 */
export function registerDrainHook(fastify: FastifyInstance, lifecycle: LifecycleService): void {
  const logger = new Logger('DrainHook');
  fastify.decorateRequest('leaveInFlight', null);
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!MCP_PATH.test(request.url)) return done();
    const release = lifecycle.tryEnter();
    if (release) {
      // The response's `close` comes exactly once for every request, however it ends: answered,
      // its client gone half-way through the body, after it, or in the middle of the answer.
      // Fastify's onResponse and onRequestAbort miss a client that leaves after its whole body.
      reply.raw.once('close', release);
      request.leaveInFlight = release;
      return done();
    }
    logger.debug({ msg: 'request refused: draining' });
    void reply.code(DRAINING_ANSWER.status).headers(DRAINING_ANSWER.headers).header('content-type', 'application/json').send(DRAINING_ANSWER.body);
  });
}
