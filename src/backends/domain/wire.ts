import { z } from 'zod';

/**
 * What every reader of a backend's JSON shares (the readers themselves sit beside what they read:
 * `call-answer.ts`, `input-required.ts`, `modern-protocol.ts`). Pure.
 */

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON object checked and kept as sent, without a copy: a backend's structured content or input
 * schema can be large, and the router relays it as it came.
 */
export const JsonObjectSchema = z.custom<Record<string, unknown>>(isJsonObject);

/** The `error` member of a JSON-RPC answer. Only its code is read: its message may echo the arguments. */
export const JsonRpcErrorSchema = z.object({ code: z.number().refine(Number.isInteger) });

/**
 * The string id of a message, if it has one: enough to find the request an answer is for, before
 * the reader of that request parses the whole message. The router's own ids are strings.
 */
export function stringIdOf(message: unknown): string | undefined {
  if (!isJsonObject(message)) return undefined;
  const { id } = message;
  return typeof id === 'string' ? id : undefined;
}
