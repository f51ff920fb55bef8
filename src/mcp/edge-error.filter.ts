import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { EdgeError, httpStatusOf } from './mcp.errors';

/** Maps edge failures to HTTP once, with a JSON-RPC error body a client can read. */
@Catch(EdgeError)
export class EdgeErrorFilter implements ExceptionFilter {
  catch(error: EdgeError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (error.code === 'method_not_allowed') reply.header('allow', 'POST');
    reply
      .status(httpStatusOf(error.code))
      .header('content-type', 'application/json')
      .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: error.message } });
  }
}
