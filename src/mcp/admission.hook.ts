import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Principal } from '../common/principal';
import { BodyBudget, reservationOf } from './domain/body-budget';
import type { HttpAnswer } from './era-dialect';
import type { McpService } from './mcp.service';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admission hook on POST /mcp before the body is read; null elsewhere. */
    principal: Principal | null;
  }
}

const MCP_PATH = /^\/mcp(\?|$)/;
/** The body budget frees up as bodies arrive; a client may retry soon. */
const RETRY_AFTER_SECONDS = '1';
const BUSY_BODY = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: 'Service Unavailable: too many request bodies are being received; retry the request' },
} as const;

/**
 * Admission of POST /mcp from the request's head, before its body is read: Host and Origin, then
 * the credential; a refused request is answered at once and its connection closed, so an
 * anonymous client can neither make the router buffer a body nor keep the connection busy sending
 * one. An admitted request then reserves its body's size in the process-wide BodyBudget,
 * and is refused 503 when the bodies being received already hold it all.
 *
 * A Fastify `onRequest` hook: it runs before the content-type parser reads the body, which no Nest
 * guard or interceptor does.
 */
export function registerAdmission(fastify: FastifyInstance, mcp: McpService, bodyLimitBytes: number, budget: BodyBudget): void {
  const logger = new Logger('Admission');
  const reserved = new WeakMap<object, number>();
  fastify.decorateRequest('principal', null);
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'POST' || !MCP_PATH.test(request.url)) return;
    const admission = await mcp.admit({ url: request.url, headers: request.headers, rawHeaders: request.raw.rawHeaders });
    if (!admission.ok) return refuse(reply, admission.answer);
    request.principal = admission.principal;
    const bytes = reservationOf(request.headers['content-length'], request.headers['transfer-encoding'], bodyLimitBytes);
    if (!budget.tryReserve(bytes)) {
      logger.warn({ msg: 'request refused: body budget full', heldBytes: budget.heldBytes, maxBytes: budget.maxBytes });
      return refuse(reply, { status: 503, headers: { 'retry-after': RETRY_AFTER_SECONDS }, body: BUSY_BODY });
    }
    reserved.set(request.raw, bytes);
  });
  const release = (request: { raw: object }) => {
    const bytes = reserved.get(request.raw);
    if (bytes === undefined) return;
    reserved.delete(request.raw);
    budget.release(bytes);
  };
  // Whichever comes first: the body is parsed, the answer is sent (413, 408 …), the client leaves.
  fastify.addHook('preValidation', (request, _reply, done) => {
    release(request);
    done();
  });
  fastify.addHook('onResponse', (request, _reply, done) => {
    release(request);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    release(request);
    done();
  });
}

/**
 * Ends a request that will not be served. `Connection: close`: Node would otherwise read and discard
 * the unread body to keep the connection alive, which is exactly the work a refusal must not do.
 */
function refuse(reply: FastifyReply, answer: HttpAnswer): FastifyReply {
  return reply
    .code(answer.status)
    .headers(answer.headers ?? {})
    .header('connection', 'close')
    .header('content-type', 'application/json')
    .send(answer.body);
}
