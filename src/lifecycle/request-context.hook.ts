import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { contextOfRequest, REQUEST_ID_HEADER, requestContext } from '../common/request-context';

/**
 * Gives every HTTP request a correlation id (the caller's `x-request-id` when sane, else a UUID),
 * echoes it as a response header, and runs the request's work inside it so log lines carry it.
 *
 * One `run` per request is enough: the body is read in the socket's 'data'/'end' events, outside
 * this context (Node's https://github.com/nodejs/node/issues/34430), but Fastify's content-type
 * parser hands the parsed body on through an AsyncResource created here, inside it, so the handler
 * runs in the request's context.
 * A second `run` once the body was parsed (as @fastify/request-context does) only cost CPU on every
 * call (BENCHMARKS.md, item 8); request-context.hook.spec.ts pins the behaviour.
 */
export function registerRequestContext(fastify: FastifyInstance, newId: () => string = randomUUID): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const context = contextOfRequest(request.headers, newId);
    reply.header(REQUEST_ID_HEADER, context.requestId);
    requestContext.run(context, done);
  });
}
