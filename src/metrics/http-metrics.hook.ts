import type { FastifyInstance } from 'fastify';
import type { MetricsService } from './metrics.service';

/**
 * Counts every HTTP response by route pattern and status code. A Fastify hook rather than a Nest
 * interceptor: it also sees what never reaches a controller (404, 413 body too large, 405s from
 * filters), which is exactly what an operator wants to see rising.
 */
export function registerHttpMetrics(fastify: FastifyInstance, metrics: MetricsService): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observeHttpRequest(request.method, request.is404 ? undefined : request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
