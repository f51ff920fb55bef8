import { Injectable } from '@nestjs/common';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, resultMessage, resultMessageJson } from './domain/jsonrpc';
import { negotiateVersion } from './domain/protocol-versions';
import type { EraDialect, EraRequest, HttpAnswer } from './era-dialect';
import { OfferingMethods } from './offering-methods';
import { PublishedSurface, SERVER_INFO } from './published-surface';

/**
 * The 2025 era (spec 2025-06-18 and 2025-11-25): `initialize` negotiates a version, then each
 * request is served alone, since this endpoint keeps no session (Streamable HTTP allows a server
 * to mint none). Every answer is HTTP 200, errors included, as those revisions have it.
 */
@Injectable()
export class LegacyEra implements EraDialect {
  constructor(
    private readonly surface: PublishedSurface,
    private readonly offerings: OfferingMethods,
  ) {}

  /** Not async: a tool call's answer is one `then` on the tool's own promise. */
  answer({ id, method, params, principal }: EraRequest): Promise<HttpAnswer> {
    switch (method) {
      case 'initialize':
        return Promise.resolve(
          ok(
            resultMessage(id, {
              protocolVersion: negotiateVersion(params.protocolVersion),
              // A list published per caller changes with the catalog, and a stream announces it.
              capabilities: { tools: { listChanged: this.surface.perCaller }, ...this.offerings.capabilities(principal) },
              serverInfo: SERVER_INFO,
              instructions: this.surface.listFor(principal).instructions,
            }),
          ),
        );
      case 'ping':
        return Promise.resolve(ok(resultMessage(id, {})));
      case 'tools/list':
        return Promise.resolve(ok(resultMessageJson(id, `{"tools":${this.surface.toolsJsonFor(principal)}}`)));
      case 'tools/call':
        return this.surface
          .call(params, principal)
          .then((outcome) => ok(outcome.ok ? resultMessageJson(id, outcome.resultJson) : errorMessage(id, ErrorCode.InvalidParams, outcome.message)));
      default: {
        if (!this.offerings.handles(method)) return Promise.resolve(ok(errorMessage(id, ErrorCode.MethodNotFound, 'Method not found')));
        return this.offerings
          .answer(method, params, principal)
          .then((answer) => ok(answer.ok ? resultMessageJson(id, answer.resultJson) : errorMessage(id, answer.code, answer.message)));
      }
    }
  }
}

function ok(body: unknown): HttpAnswer {
  return { status: 200, body };
}
