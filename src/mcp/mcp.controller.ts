import { Body, Controller, Delete, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventStream } from './era-dialect';
import { EdgeError } from './mcp.errors';
import { EdgeErrorFilter } from './edge-error.filter';
import { McpService } from './mcp.service';
import { ToolListStreams } from './tool-list-streams';

/** `/mcp`: adapts HTTP to McpService (and a GET to ToolListStreams) and back; decides nothing. Draining is the drain hook's (lifecycle/). */
@Controller('mcp')
@UseFilters(EdgeErrorFilter)
export class McpController {
  constructor(
    private readonly mcp: McpService,
    private readonly streams: ToolListStreams,
  ) {}

  @Post()
  async post(@Body() body: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const answer = await this.mcp.handlePost({
      body: typeof body === 'string' ? body : '',
      url: request.url,
      headers: request.headers,
      rawHeaders: request.raw.rawHeaders,
      principal: request.principal ?? undefined,
    });
    if (answer.events !== undefined) {
      sendEvents(reply, answer.events);
      return undefined;
    }
    reply.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
    if (answer.body === undefined) return '';
    reply.header('content-type', 'application/json');
    return answer.body;
  }

  /**
   * A stream of server-initiated messages (Streamable HTTP, "Listening for Messages from the
   * Server"): only while tools are published per caller, to announce changes of the caller's list;
   * otherwise 405, as the spec has it for a server that offers none.
   */
  @Get()
  async openStream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!this.streams.enabled) throw notAllowed();
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
    sendEvents(reply, { open: (send, end) => this.streams.open(admission.principal, send, end) });
  }

  /** Stateless: no session to end. */
  @Delete()
  endSession(): never {
    throw notAllowed();
  }
}

/** A stream of JSON-RPC messages as server-sent events, until the stream or the client ends it. */
function sendEvents(reply: FastifyReply, events: EventStream): void {
  reply.hijack();
  // A stream is not a request in flight: it ends itself when draining begins (ToolListStreams).
  reply.request.leaveInFlight?.();
  const raw = reply.raw;
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
