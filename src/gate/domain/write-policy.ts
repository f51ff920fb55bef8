import { globToRegExp } from '../../common/glob';
import type { ToolAnnotations } from '../../registry/registry.types';
import type { GateDecision } from './read-only-policy';

/** Why the gate decided as it did on the write path (architecture §11.2). */
export type WriteReason = 'read_only' | 'writes_deny' | 'not_in_writes_allow' | 'writes_allow';

export type WriteDecision = { writable: true; reason: 'writes_allow' } | { writable: false; reason: Exclude<WriteReason, 'writes_allow'> };

/** The operator's `writes` globs compiled once; with writes disabled nothing is allowed. */
export interface CompiledWritePolicy {
  allow: RegExp[];
  deny: RegExp[];
}

export function compileWritePolicy(writes: { enabled: boolean; allow: readonly string[]; deny: readonly string[] }): CompiledWritePolicy {
  return { allow: writes.enabled ? writes.allow.map(globToRegExp) : [], deny: writes.deny.map(globToRegExp) };
}

/**
 * The write gate (architecture §11.2, steps 3 and 4): a tool that is read-only, by the read
 * decision or by its own `readOnlyHint` (a read-only tool the operator denies on the read path is
 * still read-only), is never written; otherwise it must match `writes.allow` and no
 * `writes.deny`, and a deny wins.
 */
export function decideWrite(
  backend: string,
  tool: string,
  annotations: ToolAnnotations | undefined,
  read: GateDecision,
  policy: CompiledWritePolicy,
): WriteDecision {
  if (read.readOnly || annotations?.readOnlyHint === true) return { writable: false, reason: 'read_only' };
  const key = `${backend}:${tool}`;
  if (policy.deny.some((re) => re.test(key))) return { writable: false, reason: 'writes_deny' };
  if (!policy.allow.some((re) => re.test(key))) return { writable: false, reason: 'not_in_writes_allow' };
  return { writable: true, reason: 'writes_allow' };
}

/** What a caller reads when the write gate refuses a tool (`blocked`). */
export function writeRefusalMessage(reason: Exclude<WriteReason, 'writes_allow'>): string {
  return reason === 'read_only' ? 'this tool is read-only: call it with invoke_read_tool' : "the operator's writes policy does not allow this tool";
}
