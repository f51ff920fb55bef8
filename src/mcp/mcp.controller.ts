import { Controller, Delete, Get, UseFilters } from '@nestjs/common';
import { EdgeError } from './mcp.errors';
import { EdgeErrorFilter } from './edge-error.filter';

/** GET and DELETE `/mcp`: refused, the endpoint is stateless. POST is a plain Fastify route (mcp.route.ts). */
@Controller('mcp')
@UseFilters(EdgeErrorFilter)
export class McpController {
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
