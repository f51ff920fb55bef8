import type { ExceptionFilter } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EdgeError, edgeErrorAnswer } from './mcp.errors';
import { sendEvents } from './mcp.controller';
import type { McpService } from './mcp.service';

/**
 * POST /mcp as a plain Fastify route: adapts HTTP to McpService and back, decides nothing. Not a
 * Nest controller method: Nest's route wrapper (parameter decorators, pipes, the response
 * controller, its `reply` adapter) cost about a fifth of the router's CPU per call and did nothing
 * here. A failure is mapped as the controller's filters mapped it: an EdgeError to its JSON-RPC
 * answer, anything else to the application's global filter (Nest's 500 and its log line).
 * GET and DELETE stay in McpController. Registered after the hooks, which apply to it as to
 * every route.
 */
export function registerMcpRoute(fastify: FastifyInstance, mcp: McpService, globalFilter: ExceptionFilter): void {
  fastify.route({
    method: 'POST',
    url: '/mcp',
    handler: async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      try {
        const answer = await mcp.handlePost({
          body: typeof request.body === 'string' ? request.body : '',
          url: request.url,
          headers: request.headers,
          rawHeaders: request.raw.rawHeaders,
          principal: request.principal ?? undefined,
        });
        if (answer.events !== undefined) {
          sendEvents(reply, answer.events);
          return;
        }
        reply.status(answer.status);
        if (answer.headers !== undefined) for (const name in answer.headers) reply.header(name, answer.headers[name]);
        if (answer.body === undefined) {
          reply.send('');
          return;
        }
        reply.header('content-type', 'application/json');
        reply.send(answer.body);
      } catch (err) {
        if (err instanceof EdgeError) {
          const answer = edgeErrorAnswer(err);
          reply.status(answer.status).headers(answer.headers).header('content-type', 'application/json').send(answer.body);
          return;
        }
        globalFilter.catch(err, new ExecutionContextHost([request, reply]));
      }
    },
  });
}
