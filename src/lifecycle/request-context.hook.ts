import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER, type RequestContext, requestContext, saneRequestId } from '../common/request-context';

/**
 * Gives every HTTP request a correlation id (the caller's `x-request-id` when sane, else a UUID),
 * echoes it as a response header, and runs the request's work inside it so log lines carry it.
 */
export function registerRequestContext(fastify: FastifyInstance, newId: () => string = randomUUID): void {
  const contexts = new WeakMap<object, RequestContext>();
  fastify.addHook('onRequest', (request, reply, done) => {
    const traceparent = request.headers.traceparent;
    const context: RequestContext = {
      requestId: saneRequestId(request.headers[REQUEST_ID_HEADER]) ?? newId(),
      ...(typeof traceparent === 'string' && traceparent.length <= 64 ? { traceparent } : {}),
    };
    contexts.set(request.raw, context);
    reply.header(REQUEST_ID_HEADER, context.requestId);
    requestContext.run(context, done);
  });
  // The body is read in the socket's 'data'/'end' events, which run outside the onRequest
  // context, and the handler runs from there: enter the request's context again once it is parsed
  // (the same fix as @fastify/request-context; nodejs/node#34430).
  fastify.addHook('preValidation', (request, _reply, done) => {
    const context = contexts.get(request.raw);
    if (context) requestContext.run(context, done);
    else done();
  });
}
