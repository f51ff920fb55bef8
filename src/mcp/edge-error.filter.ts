import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { EdgeError, edgeErrorAnswer } from './mcp.errors';

/** Maps edge failures to HTTP once, with a JSON-RPC error body a client can read. */
@Catch(EdgeError)
export class EdgeErrorFilter implements ExceptionFilter {
  catch(error: EdgeError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const answer = edgeErrorAnswer(error);
    reply.status(answer.status).headers(answer.headers).header('content-type', 'application/json').send(answer.body);
  }
}
