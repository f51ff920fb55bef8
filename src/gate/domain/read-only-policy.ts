import { globToRegExp } from '../../common/glob';
import type { ToolAnnotations } from '../../registry/registry.types';

/** Why the gate decided as it did; reported to callers in `blocked` errors and in logs. */
export type GateReason = 'annotated_read_only' | 'operator_allow' | 'operator_deny' | 'not_annotated_read_only';

export interface GateDecision {
  readOnly: boolean;
  reason: GateReason;
}

/** Operator patterns compiled once: `backend:tool` globs where `*` is any run and `?` one character. */
export interface CompiledPolicy {
  allow: RegExp[];
  deny: RegExp[];
}

/** Compiles `backend:tool*` glob patterns. A pattern without `:` applies to that tool on every backend. */
export function compilePolicy(policy: { allow: readonly string[]; deny: readonly string[] }): CompiledPolicy {
  return { allow: policy.allow.map(globToRegExp), deny: policy.deny.map(globToRegExp) };
}

/**
 * The read-only gate (architecture §4): callable through the read path only when annotated
 * `readOnlyHint: true` or allowed by the operator; a deny always wins; no annotation means not
 * read-only, because an unannotated tool may write.
 */
export function decideReadOnly(backend: string, tool: string, annotations: ToolAnnotations | undefined, policy: CompiledPolicy): GateDecision {
  const key = `${backend}:${tool}`;
  if (policy.deny.some((re) => re.test(key))) return { readOnly: false, reason: 'operator_deny' };
  if (annotations?.readOnlyHint === true) return { readOnly: true, reason: 'annotated_read_only' };
  if (policy.allow.some((re) => re.test(key))) return { readOnly: true, reason: 'operator_allow' };
  return { readOnly: false, reason: 'not_annotated_read_only' };
}

/** What a caller reads when the read gate refuses a tool (`blocked`). */
export function readRefusalMessage(reason: GateReason): string {
  return reason === 'operator_deny'
    ? 'the operator policy denies this tool on the read path'
    : 'this tool is not read-only (its backend does not annotate it readOnlyHint: true)';
}
