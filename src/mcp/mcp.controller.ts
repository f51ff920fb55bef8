import { Controller, Delete, Get, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { EventStream } from './era-dialect';
import { EdgeError } from './mcp.errors';
import { EdgeErrorFilter } from './edge-error.filter';
import { McpService } from './mcp.service';
import { ListChangeStreams } from './list-change-streams';

/**
 * GET and DELETE `/mcp`: a GET opens a ListChangeStreams stream (while the caller has a list that
 * can change), DELETE is refused (the endpoint is stateless). POST is answered below Fastify
 * (mcp-post.ts). Draining is the drain hook's (lifecycle/).
 */
@Controller('mcp')
@UseFilters(EdgeErrorFilter)
export class McpController {
  constructor(
    private readonly mcp: McpService,
    private readonly streams: ListChangeStreams,
  ) {}

  /**
   * A stream of server-initiated messages (Streamable HTTP, "Listening for Messages from the
   * Server"): to announce changes of the caller's lists (its tools while they are published per
   * caller, the resources and prompts of the backends it may use); 405 when it has none, as the
   * spec has it for a server that offers no stream.
   */
  @Get()
  async openStream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // Refused before admission when no caller could have a stream, as before tools went per caller.
    if (!this.streams.mayStream) throw notAllowed();
    const admission = await this.mcp.admit({ url: request.url, headers: request.headers, rawHeaders: request.raw.rawHeaders });
    if (!admission.ok) {
      const { answer } = admission;
      await reply
        .status(answer.status)
        .headers(answer.headers ?? {})
        .header('content-type', 'application/json')
        .send(answer.body);
      return;
    }
    const kinds = this.streams.kindsFor(admission.principal);
    if (kinds.length === 0) throw notAllowed();
    reply.hijack();
    sendEvents(reply.raw, { open: (send, end) => this.streams.open(admission.principal, kinds, send, end) }, () => request.leaveInFlight?.());
  }

  /** Stateless: no session to end. */
  @Delete()
  endSession(): never {
    throw notAllowed();
  }
}

/**
 * A stream of JSON-RPC messages as server-sent events, until the stream or the client ends it.
 * A stream is not a request in flight: it ends itself when draining begins (ListChangeStreams), so
 * `leaveInFlight` ends the request's count first.
 */
export function sendEvents(raw: ServerResponse, events: EventStream, leaveInFlight: () => void): void {
  leaveInFlight();
  raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
  raw.flushHeaders();
  const stop = events.open(
    (message) => raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`),
    () => raw.end(),
  );
  raw.on('close', stop);
}

function notAllowed(): EdgeError {
  return new EdgeError('method_not_allowed', 'Method Not Allowed: this endpoint is stateless; POST JSON-RPC messages');
}
