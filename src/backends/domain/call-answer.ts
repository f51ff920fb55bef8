import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { RouterError } from '../../common/router-error';
import type { BackendToolResult } from '../backends.types';
import { backendFailure } from './backend-failures';
import { type InputRequired, readInputRequired, type RoundAnswer } from './input-required';
import { isJsonObject, JsonRpcErrorSchema } from './wire';

/** What one JSON-RPC message says about the request with a given id. */
export type CallAnswer =
  | { kind: 'result'; result: BackendToolResult }
  | { kind: 'error'; code: number }
  /** The answer to that id, but not a well-formed `tools/call` result (MCP spec, CallToolResult). */
  | { kind: 'malformed' }
  /** A 2026-07-28 `InputRequiredResult` (spec basic/patterns/mrtr): valid only from a modern backend. */
  | InputRequired
  /** Another message: a notification, a server request, or the answer to another id. */
  | { kind: 'other' };

const OTHER: CallAnswer = { kind: 'other' };
const MALFORMED: CallAnswer = { kind: 'malformed' };

/**
 * Reads a backend's message as the answer to request `id` of a `tools/call`: the one place a call's
 * answer is parsed. The backend's error message is dropped: it may echo the arguments
 * (architecture §5).
 */
export function readCallAnswer(message: unknown, id: string): CallAnswer {
  // The envelope of a JSON-RPC answer to one of the router's requests (its ids are strings).
  if (!isJsonObject(message) || message.jsonrpc !== '2.0' || message.id !== id) return OTHER;
  const { result, error } = message;
  if (error !== undefined) {
    const parsed = JsonRpcErrorSchema.safeParse(error);
    return parsed.success ? { kind: 'error', code: parsed.data.code } : MALFORMED;
  }
  const call = toCallResult(result);
  if (call !== undefined) return { kind: 'result', result: call };
  // Only once the result is not a CallToolResult: a 2025 success costs nothing more.
  return readInputRequired(result) ?? MALFORMED;
}

/**
 * The call's outcome from the message that had to answer it: the result, or the RouterError it
 * fails with. Another message in the answer's place (`other`) is a broken envelope.
 */
export function outcomeOf(answer: CallAnswer, backend: string): BackendToolResult | RouterError {
  switch (answer.kind) {
    case 'result':
      return answer.result;
    case 'error':
      return backendFailure.jsonRpcError(backend, answer.code);
    // `input_required` is not the vocabulary of a 2025 era: there it is a malformed result.
    case 'malformed':
    case 'other':
    case 'input_required':
      return backendFailure.malformed(backend);
  }
}

/**
 * The outcome of one round of a 2026-07-28 `tools/call`: as `outcomeOf`, except that an
 * `input_required` result is an answer (its rounds are run by `callInRounds`).
 */
export function modernOutcomeOf(answer: CallAnswer, backend: string): RoundAnswer | RouterError {
  return answer.kind === 'input_required' ? answer : outcomeOf(answer, backend);
}

/**
 * A `tools/call` result with only the fields the router relays (MCP spec, CallToolResult), or
 * undefined when malformed: the rest of the result (`_meta`, a 2026 `resultType`) is dropped. Plain
 * checks, since it runs on every call: the content blocks are checked in one pass for their kind
 * and required fields and kept as sent, never copied block by block, and so is structured content.
 */
export function toCallResult(result: unknown): BackendToolResult | undefined {
  if (!isJsonObject(result)) return undefined;
  const { content, structuredContent, isError } = result;
  if (!Array.isArray(content) || !content.every(isContentBlock)) return undefined;
  if (structuredContent !== undefined && !isJsonObject(structuredContent)) return undefined;
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  const call: BackendToolResult = { content: content as ContentBlock[] };
  if (structuredContent !== undefined) call.structuredContent = structuredContent;
  if (isError !== undefined) call.isError = isError;
  return call;
}

/** MCP content block kinds (spec 2025-06-18, ContentBlock) with their required string fields. */
function isContentBlock(block: unknown): boolean {
  if (!isJsonObject(block)) return false;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string';
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string';
    case 'resource_link':
      return typeof block.uri === 'string' && typeof block.name === 'string';
    case 'resource': {
      const resource = block.resource;
      return isJsonObject(resource) && typeof resource.uri === 'string' && (typeof resource.text === 'string' || typeof resource.blob === 'string');
    }
    default:
      return false;
  }
}
