import { Injectable } from '@nestjs/common';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { OfferingsService } from '../batch/offerings.service';
import type { Principal } from '../common/principal';
import type { RequestParams } from './domain/jsonrpc';

/** MCP spec "Resources › Error Handling": a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

/** The methods a backend's resources and prompts are reached by, and the listing each one answers. */
const LISTINGS: Readonly<Record<string, { kind: 'resources' | 'templates' | 'prompts'; field: string }>> = {
  'resources/list': { kind: 'resources', field: 'resources' },
  'resources/templates/list': { kind: 'templates', field: 'resourceTemplates' },
  'prompts/list': { kind: 'prompts', field: 'prompts' },
};
const OFFERING_METHODS = new Set([...Object.keys(LISTINGS), 'resources/read', 'prompts/get']);

/** An answer of one of these methods: a result's JSON text, or a JSON-RPC error. */
export type OfferingAnswer = { ok: true; resultJson: string } | { ok: false; code: number; message: string };

/** What `initialize` and `server/discover` declare beside tools. */
export interface OfferingCapabilityDeclaration {
  resources?: { listChanged: boolean };
  prompts?: { listChanged: boolean };
}

/**
 * The MCP methods of a backend's resources and prompts (architecture §16), for both protocol eras:
 * each era's dialect hands them here and wraps the answer its own way. Resource subscriptions
 * (`resources/subscribe`) are not offered: this endpoint keeps no session to send updates on, so
 * `subscribe` is never declared and the method is "Method not found".
 */
@Injectable()
export class OfferingMethods {
  constructor(private readonly offerings: OfferingsService) {}

  /** Whether `method` is one of these. */
  handles(method: string): boolean {
    return OFFERING_METHODS.has(method);
  }

  /**
   * The capabilities to declare to this caller: `resources` and `prompts` only when a backend it
   * may use declared them, with `listChanged: true`, since every front end has a stream to tell
   * it on (stdout; over HTTP the GET stream or a `subscriptions/listen`, see ListChangeStreams).
   */
  capabilities(principal: Principal): OfferingCapabilityDeclaration {
    return {
      ...(this.offerings.declares('resources', principal) ? { resources: { listChanged: true } } : {}),
      ...(this.offerings.declares('prompts', principal) ? { prompts: { listChanged: true } } : {}),
    };
  }

  async answer(method: string, params: RequestParams, principal: Principal): Promise<OfferingAnswer> {
    const listing = LISTINGS[method];
    if (listing !== undefined) {
      const page = this.offerings.list(listing.kind, params.cursor, principal);
      if (!page.ok) return { ok: false, code: ErrorCode.InvalidParams, message: page.message };
      const result = { [listing.field]: page.items, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
      return { ok: true, resultJson: JSON.stringify(result) };
    }
    const outcome = method === 'resources/read' ? await this.offerings.read(params, principal) : await this.offerings.getPrompt(params, principal);
    if (outcome.ok) return outcome;
    switch (outcome.kind) {
      case 'not_found':
        return { ok: false, code: RESOURCE_NOT_FOUND, message: outcome.message };
      case 'invalid_params':
        return { ok: false, code: ErrorCode.InvalidParams, message: outcome.message };
      case 'failed':
        return { ok: false, code: ErrorCode.InternalError, message: outcome.message };
    }
  }
}
