import {
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ReadResourceResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { NO_OFFERINGS, type OfferingCapabilities } from '../../registry/domain/offerings';
import type { OfferingRequest } from '../channels/backend-channel';
import { backendFailure } from './backend-failures';
import type { DiscoverAnswer } from './modern-protocol';

/**
 * Resources and prompts of a 2026-07-28 ("modern") backend, pure: what its discovery declares,
 * how each request travels, and how its result is read. The methods and result shapes are those of
 * the 2025 eras (spec "Resources", "Prompts"); what differs is the envelope (`_meta` on every
 * request, the `Mcp-Name` header on `resources/read` and `prompts/get`, spec "Standard Request
 * Headers") and the `resultType` a modern result may carry.
 */

/** What a modern backend's `server/discover` declares beside tools (spec "Discovery", `capabilities`). */
export function offeringsOf(answer: DiscoverAnswer): OfferingCapabilities {
  const declared = answer.result?.capabilities;
  if (!declared) return NO_OFFERINGS;
  return { resources: declared.resources !== undefined, prompts: declared.prompts !== undefined };
}

/**
 * One offering request as it goes on the wire: its method, its params (without `_meta`, which the
 * wire adds), and the value its `Mcp-Name` header mirrors (`uri` of a read, `name` of a get).
 */
export interface OfferingWireRequest {
  method: OfferingRequest['method'];
  params: Record<string, unknown>;
  name?: string;
}

/** How `request` travels to a modern backend. */
export function offeringWireRequest(request: OfferingRequest): OfferingWireRequest {
  switch (request.method) {
    case 'resources/read':
      return { method: request.method, params: { uri: request.uri }, name: request.uri };
    case 'prompts/get':
      return { method: request.method, params: { name: request.name, arguments: request.arguments }, name: request.name };
    default:
      return { method: request.method, params: request.cursor === undefined ? {} : { cursor: request.cursor } };
  }
}

/** The schema each result is checked by: the SDK's, as for a 2025 backend (loose: extra fields stay). */
const RESULT_SCHEMAS: Record<OfferingRequest['method'], z.ZodType<Record<string, unknown>>> = {
  'resources/list': ListResourcesResultSchema,
  'resources/templates/list': ListResourceTemplatesResultSchema,
  'prompts/list': ListPromptsResultSchema,
  'resources/read': ReadResourceResultSchema,
  'prompts/get': GetPromptResultSchema,
};

/** The methods an `input_required` result asks the client to serve (spec basic/patterns/mrtr). */
const InputRequiredSchema = z.object({
  resultType: z.literal('input_required'),
  inputRequests: z.record(z.string(), z.object({ method: z.string() }).catch({ method: 'unknown' })).catch({}),
});

/**
 * The result of one offering request (`result` is the JSON-RPC answer's `result`), or an Error
 * naming the backend and the kind of failure only. An `input_required` result fails: the router
 * declares no client capabilities, so nothing it could be asked for can be given.
 */
export function readOfferingResult(method: OfferingRequest['method'], result: unknown, backend: string): Record<string, unknown> {
  const inputRequired = InputRequiredSchema.safeParse(result);
  if (inputRequired.success) {
    const methods = Object.values(inputRequired.data.inputRequests).map((r) => r.method);
    throw backendFailure.inputRequested(backend, [...new Set(methods)]);
  }
  const parsed = RESULT_SCHEMAS[method].safeParse(result);
  if (!parsed.success) throw backendFailure.malformed(backend);
  return parsed.data;
}
