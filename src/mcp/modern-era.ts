import { Injectable } from '@nestjs/common';
import { ANONYMOUS } from '../common/principal';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../common/principal';
import { errorMessage, resultMessageJson, type RequestId, type RequestParams } from './domain/jsonrpc';
import { grantedFilter, grantedKinds, type ListKind } from './domain/list-subscription';
import { PROTOCOL_VERSIONS } from './domain/protocol-versions';
import { SERVER_INFO_META_KEY } from './domain/request-era';
import type { EraDialect, EraRequest, EventStream, HttpAnswer } from './era-dialect';
import { OfferingMethods } from './offering-methods';
import { PublishedSurface, SERVER_INFO } from './published-surface';
import { ListChangeStreams } from './list-change-streams';

/** The `_meta` key every message of a subscription carries (spec 2026-07-28, "Subscriptions"). */
const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/**
 * How long a client or cache may hold `tools/list` and `server/discover` (spec 2026-07-28,
 * "Caching"). The surface changes only when the router restarts with another `writes` setting;
 * an hour bounds how long a client keeps the old list after such a deploy.
 */
export const SURFACE_TTL_MS = 3_600_000;
/** The surface is the same for every caller (access is checked per call), so shared caches may keep it. */
export const SURFACE_CACHE_SCOPE = 'public';
/**
 * With tools published directly (`publish.mode` `direct` or `both`) the list is the caller's own
 * and follows the catalog: only the caller may keep it, for a minute.
 */
export const PER_CALLER_TTL_MS = 60_000;
export const PER_CALLER_CACHE_SCOPE = 'private';

/**
 * The 2026-07-28 era: no handshake, every request stands alone with its version and capabilities
 * in `_meta` (checked by `selectEra` before this runs). Every result says `resultType: "complete"`
 * (the router never asks for input) and names the server in `_meta`; `server/discover` and
 * `tools/list` carry caching hints. The answers that never change are serialized once, at boot.
 *
 * Not served: `subscriptions/listen` while the caller has no list that can change (`publish.mode`
 * `meta` and no backend it may use serves resources or prompts: capabilities say
 * `listChanged: false` and clients rely on `ttlMs`; otherwise it announces the changes of the
 * caller's tools, resources and prompts, see ListChangeStreams), `ping` (removed by this
 * revision), and `initialize` (the legacy era's). Each is "Method not found" with HTTP 404, as
 * Streamable HTTP asks for a method the server does not implement.
 */
@Injectable()
export class ModernEra implements EraDialect {
  /** Serialized once at boot when the surface is the same for every caller; undefined when it is per caller. */
  private readonly discoverJson: string | undefined;
  private readonly toolsListJson: string | undefined;
  /** What every result opens with, before its own fields. */
  private readonly resultHead: string;

  constructor(
    private readonly surface: PublishedSurface,
    private readonly streams: ListChangeStreams,
    private readonly offerings: OfferingMethods,
  ) {
    this.resultHead = `{"resultType":"complete","_meta":${JSON.stringify(SERVER_META)}`;
    const listing = surface.perCaller ? undefined : surface.listFor(ANONYMOUS);
    this.discoverJson = listing && discoverJson(listing.instructions, SURFACE_TTL_MS, SURFACE_CACHE_SCOPE, false);
    this.toolsListJson = listing && toolsListJson(JSON.stringify(listing.tools), SURFACE_TTL_MS, SURFACE_CACHE_SCOPE);
  }

  async answer({ id, method, params, principal }: EraRequest): Promise<HttpAnswer> {
    switch (method) {
      case 'server/discover': {
        const base = this.discoverJson ?? discoverJson(this.surface.listFor(principal).instructions, PER_CALLER_TTL_MS, PER_CALLER_CACHE_SCOPE, true);
        // The static answer, unless a backend this caller may use serves resources or prompts.
        const offered = this.offerings.capabilities(principal);
        if (offered.resources === undefined && offered.prompts === undefined) return ok(resultMessageJson(id, base));
        const discover = JSON.parse(base) as { capabilities: Record<string, unknown> };
        discover.capabilities = { ...discover.capabilities, ...offered };
        return ok(resultMessageJson(id, JSON.stringify(discover)));
      }
      case 'tools/list':
        return ok(resultMessageJson(id, this.toolsListJson ?? toolsListJson(this.surface.toolsJsonFor(principal), PER_CALLER_TTL_MS, PER_CALLER_CACHE_SCOPE)));
      case 'subscriptions/listen': {
        const available = this.streams.kindsFor(principal);
        if (available.length > 0) return { status: 200, events: this.listen(id, params, principal, available) };
        return notServed(id, method);
      }
      case 'tools/call': {
        const outcome = await this.surface.call(params, principal);
        return ok(outcome.ok ? resultMessageJson(id, this.complete(outcome.resultJson)) : errorMessage(id, ErrorCode.InvalidParams, outcome.message));
      }
      default:
        if (this.offerings.handles(method)) {
          const answer = await this.offerings.answer(method, params, principal);
          return ok(answer.ok ? resultMessageJson(id, this.complete(answer.resultJson)) : errorMessage(id, answer.code, answer.message));
        }
        return notServed(id, method);
    }
  }

  /**
   * A `subscriptions/listen` stream (spec 2026-07-28, "Subscriptions"): acknowledged with what the
   * router grants (the list changes asked for among those that can change for the caller; never
   * single-resource updates), each message carrying the subscription id (the request's id); when
   * the router drains, the subscription closes gracefully with the request's result.
   */
  private listen(id: RequestId, params: RequestParams, principal: Principal, available: ListKind[]): EventStream {
    const granted = grantedKinds(params.notifications, available);
    const meta = { [SUBSCRIPTION_ID_META_KEY]: id };
    return {
      open: (send, end) => {
        const close = () => {
          send({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: SERVER_META } });
          end();
        };
        const acknowledge = () =>
          send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: grantedFilter(granted), _meta: meta } });
        if (granted.length === 0) {
          acknowledge();
          close();
          return () => undefined;
        }
        // Registered first, acknowledged in the same turn: a client that reads the acknowledgment
        // misses no change after it (changes are announced in a later turn).
        const stop = this.streams.open(principal, granted, (message) => send({ ...message, params: { _meta: meta } }), close);
        acknowledge();
        return stop;
      },
    };
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

const SERVER_META = { [SERVER_INFO_META_KEY]: SERVER_INFO };

function discoverJson(instructions: string, ttlMs: number, cacheScope: string, listChanged: boolean): string {
  return JSON.stringify({
    resultType: 'complete',
    supportedVersions: PROTOCOL_VERSIONS,
    capabilities: { tools: { listChanged } },
    instructions,
    ttlMs,
    cacheScope,
    _meta: SERVER_META,
  });
}

const SERVER_META_JSON = JSON.stringify(SERVER_META);

/** A `tools/list` result around the tools' JSON text (serialized once per kept listing). */
function toolsListJson(toolsJson: string, ttlMs: number, cacheScope: string): string {
  return `{"resultType":"complete","tools":${toolsJson},"ttlMs":${ttlMs},"cacheScope":${JSON.stringify(cacheScope)},"_meta":${SERVER_META_JSON}}`;
}

/** Streamable HTTP, "Protocol Version Header": a method the server does not implement is 404. */
function notServed(id: RequestId, method: string): HttpAnswer {
  return { status: 404, body: errorMessage(id, ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 80)}`) };
}

function ok(body: unknown): HttpAnswer {
  return { status: 200, body };
}
