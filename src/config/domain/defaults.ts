/** The keys of T whose value may be absent. */
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/** Values for some of a config block's optional fields: what the router assumes when the file leaves them out. */
export type Defaults<T> = { readonly [K in OptionalKeys<T>]?: Exclude<T[K], undefined> };

/** A config block as the router uses it: T's fields, those with a default (the keys of D) always set. */
export type WithDefaults<T, D> = Omit<T, keyof D> & { -readonly [K in keyof D & keyof T]-?: Exclude<T[K], undefined> };

/**
 * The fields a validated block sets, over its defaults: a field the file left out (undefined, or
 * the whole block absent) takes its default. The result is a plain object, whatever the block's
 * class; an array default is copied, so no two blocks share one.
 */
export function withDefaults<T extends object, D extends Defaults<T>>(block: T | undefined, defaults: D): WithDefaults<T, D> {
  const fields: Record<string, unknown> = {};
  const entries: [string, unknown][] = Object.entries(defaults);
  for (const [key, value] of entries) fields[key] = Array.isArray(value) ? value.slice() : value;
  for (const [key, value] of Object.entries(block ?? {})) if (value !== undefined) fields[key] = value;
  // Built key by key from T's and D's entries, which TypeScript types as strings, not as their keys.
  return fields as WithDefaults<T, D>;
}
