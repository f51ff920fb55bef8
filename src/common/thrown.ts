/*
 * What a `catch` receives is `unknown`: Node's system errors carry a string `code` (`ENOENT`,
 * `EADDRINUSE` …), and what the router and its libraries throw is an `Error`. These read those
 * fields without asserting that the value has them.
 */
import { isJsonObject } from './json-object';

/** The system error code of a thrown value (`ENOENT`, `EEXIST` …), or undefined when it has none. */
export function errnoCode(thrown: unknown): string | undefined {
  if (!isJsonObject(thrown)) return undefined;
  const { code } = thrown;
  return typeof code === 'string' ? code : undefined;
}

/** The message of a thrown value: an Error's own, else the value as text. */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
