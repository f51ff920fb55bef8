import type { RouterError } from '../../common/router-error';
import type { BackendToolResult } from '../backends.types';
import { backendFailure } from './backend-failures';
import { type InputRequired, readInputRequired, type RoundAnswer } from './input-required';

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

/**
 * Reads a backend's message as the answer to request `id` of a `tools/call`. Structural checks
 * only, the same shape the SDK's CallToolResult schema demands, without running a schema library on
 * every answer. The backend's error message is dropped: it may echo the arguments (architecture §5).
 */
export function readCallAnswer(message: unknown, id: string): CallAnswer {
  if (!isObject(message) || message.id !== id || message.jsonrpc !== '2.0') return { kind: 'other' };
  if ('error' in message) {
    const error = message.error;
    return isObject(error) && Number.isInteger(error.code) ? { kind: 'error', code: error.code as number } : { kind: 'malformed' };
  }
  const result = toCallResult(message.result);
  if (result) return { kind: 'result', result };
  // Only once the result is not a CallToolResult: a 2025 success costs nothing more.
  return readInputRequired(message.result) ?? { kind: 'malformed' };
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
    case 'malformed':
    case 'other':
    // Not the vocabulary of a 2025 era: there it is a malformed result.
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

/** A `tools/call` result with only the fields the router relays, or undefined when malformed. */
export function toCallResult(result: unknown): BackendToolResult | undefined {
  if (!isObject(result) || !Array.isArray(result.content) || !result.content.every(isContentBlock)) return undefined;
  const { structuredContent, isError } = result;
  if (structuredContent !== undefined && !isObject(structuredContent)) return undefined;
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  return {
    content: result.content as BackendToolResult['content'],
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError !== undefined ? { isError } : {}),
  };
}

/** MCP content block kinds (spec 2025-06-18, ContentBlock) with their required string fields. */
function isContentBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
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
      return isObject(resource) && typeof resource.uri === 'string' && (typeof resource.text === 'string' || typeof resource.blob === 'string');
    }
    default:
      return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
