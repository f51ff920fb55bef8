import { isJsonObject } from '../../common/json-object';

/**
 * The lists a client can be told have changed, and the `subscriptions/listen` filter of a
 * 2026-07-28 client read against them (spec 2026-07-28 "Subscriptions", `SubscriptionFilter`).
 */

/** A list a client can be told has changed: `resources` stands for the resource templates too. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** The filter field that asks for each kind's change notifications. */
const FILTER_FIELDS: Readonly<Record<ListKind, string>> = {
  tools: 'toolsListChanged',
  resources: 'resourcesListChanged',
  prompts: 'promptsListChanged',
};

/**
 * What the router grants of a subscription's `notifications` filter: the kinds it asked for with
 * `true` among those that can change for this caller (`available`), in that order. `resourceSubscriptions`
 * (updates of single resources) is never granted: see README "Resources and prompts".
 */
export function grantedKinds(filter: unknown, available: readonly ListKind[]): ListKind[] {
  if (!isJsonObject(filter)) return [];
  return available.filter((kind) => filter[FILTER_FIELDS[kind]] === true);
}

/** The acknowledgment's `notifications`: one `true` field per granted kind, nothing for the rest. */
export function grantedFilter(kinds: readonly ListKind[]): Record<string, true> {
  return Object.fromEntries(kinds.map((kind) => [FILTER_FIELDS[kind], true as const]));
}
