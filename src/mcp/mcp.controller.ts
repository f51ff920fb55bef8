import { Body, Controller, Delete, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EdgeError } from './mcp.errors';
import { EdgeErrorFilter } from './edge-error.filter';
import { McpService } from './mcp.service';

/** `/mcp`: adapts HTTP to McpService and back; decides nothing. Draining is the drain hook's (lifecycle/). */
@Controller('mcp')
@UseFilters(EdgeErrorFilter)
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  async post(@Body() body: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const answer = await this.mcp.handlePost({
      body: typeof body === 'string' ? body : '',
      url: request.url,
      headers: request.headers,
      rawHeaders: request.raw.rawHeaders,
      principal: request.principal ?? undefined,
    });
    reply.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
    if (answer.body === undefined) return '';
    reply.header('content-type', 'application/json');
    return answer.body;
  }

  /** Stateless: no server-initiated stream to open (spec: 405 when a server offers none). */
  @Get()
  openStream(): never {
    throw notAllowed();
  }

  /** Stateless: no session to end. */
  @Delete()
  endSession(): never {
    throw notAllowed();
  }
}

function notAllowed(): EdgeError {
  return new EdgeError('method_not_allowed', 'Method Not Allowed: this endpoint is stateless; POST JSON-RPC messages');
}
