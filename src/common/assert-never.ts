/** Compile-time exhaustiveness check: a new union member fails to compile until it is handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${String(value)}`);
}
