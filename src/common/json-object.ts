/** A JSON object as parsed from text: its fields are whatever the sender put there. */
export type JsonObject = Record<string, unknown>;

/**
 * True for a non-null, non-array object: what JSON calls an object, and what a field can be read
 * from. The one check behind every "must be an object" rule, so code past it reads fields as
 * `unknown` instead of asserting a shape.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
