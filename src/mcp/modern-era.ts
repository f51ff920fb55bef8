import { Injectable } from '@nestjs/common';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, resultMessageJson } from './domain/jsonrpc';
import { PROTOCOL_VERSIONS } from './domain/protocol-versions';
import { SERVER_INFO_META_KEY } from './domain/request-era';
import type { EraDialect, EraRequest, HttpAnswer } from './era-dialect';
import { OfferingMethods } from './offering-methods';
import { PublishedSurface, SERVER_INFO } from './published-surface';

/**
 * How long a client or cache may hold `tools/list` and `server/discover` (spec 2026-07-28,
 * "Caching"). The surface changes only when the router restarts with another `writes` setting;
 * an hour bounds how long a client keeps the old list after such a deploy.
 */
export const SURFACE_TTL_MS = 3_600_000;
/** The surface is the same for every caller (access is checked per call), so shared caches may keep it. */
export const SURFACE_CACHE_SCOPE = 'public';

/**
 * The 2026-07-28 era: no handshake, every request stands alone with its version and capabilities
 * in `_meta` (checked by `selectEra` before this runs). Every result says `resultType: "complete"`
 * (the router never asks for input) and names the server in `_meta`; `server/discover` and
 * `tools/list` carry caching hints. The answers that never change are serialized once, at boot.
 *
 * Not served: `subscriptions/listen` (the surface is static, so there is no change to announce:
 * capabilities say `listChanged: false` and clients rely on `ttlMs`), `ping` (removed by this
 * revision), and `initialize` (the legacy era's). Each is "Method not found" with HTTP 404, as
 * Streamable HTTP asks for a method the server does not implement.
 */
@Injectable()
export class ModernEra implements EraDialect {
  private readonly discoverJson: string;
  private readonly toolsListJson: string;
  /** What every result opens with, before its own fields. */
  private readonly resultHead: string;

  constructor(
    private readonly surface: PublishedSurface,
    private readonly offerings: OfferingMethods,
  ) {
    const meta = { [SERVER_INFO_META_KEY]: SERVER_INFO };
    this.resultHead = `{"resultType":"complete","_meta":${JSON.stringify(meta)}`;
    this.discoverJson = JSON.stringify({
      resultType: 'complete',
      supportedVersions: PROTOCOL_VERSIONS,
      capabilities: { tools: { listChanged: false } },
      instructions: surface.instructions,
      ttlMs: SURFACE_TTL_MS,
      cacheScope: SURFACE_CACHE_SCOPE,
      _meta: meta,
    });
    this.toolsListJson = JSON.stringify({ resultType: 'complete', tools: surface.tools, ttlMs: SURFACE_TTL_MS, cacheScope: SURFACE_CACHE_SCOPE, _meta: meta });
  }

  async answer({ id, method, params, principal }: EraRequest): Promise<HttpAnswer> {
    switch (method) {
      case 'server/discover': {
        // The static answer, unless a backend this caller may use serves resources or prompts.
        const offered = this.offerings.capabilities(principal);
        if (offered.resources === undefined && offered.prompts === undefined) return ok(resultMessageJson(id, this.discoverJson));
        const discover = JSON.parse(this.discoverJson) as { capabilities: Record<string, unknown> };
        discover.capabilities = { ...discover.capabilities, ...offered };
        return ok(resultMessageJson(id, JSON.stringify(discover)));
      }
      case 'tools/list':
        return ok(resultMessageJson(id, this.toolsListJson));
      case 'tools/call': {
        const outcome = await this.surface.call(params, principal);
        return ok(outcome.ok ? resultMessageJson(id, this.complete(outcome.resultJson)) : errorMessage(id, ErrorCode.InvalidParams, outcome.message));
      }
      default:
        if (this.offerings.handles(method)) {
          const answer = await this.offerings.answer(method, params, principal);
          return ok(answer.ok ? resultMessageJson(id, this.complete(answer.resultJson)) : errorMessage(id, answer.code, answer.message));
        }
        return { status: 404, body: errorMessage(id, ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 80)}`) };
    }
  }

  /**
   * A tool result (a JSON object's text, which never has `resultType` or `_meta` of its own) with
   * this era's fields put in front, without parsing or serializing it again.
   */
  private complete(resultJson: string): string {
    const rest = resultJson.slice(1).trimStart();
    return rest.startsWith('}') ? `${this.resultHead}}` : `${this.resultHead},${rest}`;
  }
}

function ok(body: unknown): HttpAnswer {
  return { status: 200, body };
}
