import { RouterError } from '../../common/router-error';
import type { ConfirmationRefusal } from '../../cursor/cursor.service';
import { MAX_CONFIRMATION_LENGTH } from '../../cursor/domain/confirmation-codec';
import type { CatalogTool } from '../../registry/registry.types';
import { checkReadCall, type ReadCall } from './read-call';

/** The fields `invoke_tool` takes (architecture §11.2): a read call's, without `cursor`, plus `confirm`. */
const WRITE_FIELDS = new Set(['name', 'server', 'arguments', 'confirm']);

/** One `invoke_tool` call once validated: the call, and the confirmation token it carries, if any. */
export type WriteCallCheck = { ok: true; call: Omit<ReadCall, 'cursor'>; confirm?: string } | { ok: false; message: string };

/**
 * Validates an `invoke_tool` call: only its own fields, `confirm` 1..{@link MAX_CONFIRMATION_LENGTH}
 * characters (the longest token the codec reads), then the bounds a read call has. Messages
 * never contain a value.
 */
export function checkWriteCall(raw: Record<string, unknown>): WriteCallCheck {
  if (Object.keys(raw).some((k) => !WRITE_FIELDS.has(k))) return { ok: false, message: `unknown field(s); allowed: ${[...WRITE_FIELDS].join(', ')}` };
  const { confirm, ...rest } = raw;
  if (confirm !== undefined && (typeof confirm !== 'string' || confirm.length < 1 || confirm.length > MAX_CONFIRMATION_LENGTH)) {
    return { ok: false, message: `\`confirm\` must be a string of 1..${MAX_CONFIRMATION_LENGTH} characters` };
  }
  const checked = checkReadCall(rest);
  if (!checked.ok) return checked;
  return confirm === undefined ? { ok: true, call: checked.call } : { ok: true, call: checked.call, confirm };
}

/**
 * Names of a preview parameter: `dry_run`, and `dryRun` as the reference filesystem server spells
 * it. The one list `invoke_tool`'s description quotes, so what a model is told is what is checked.
 */
export const DRY_RUN_PARAMETERS = ['dry_run', 'dryRun'] as const;

/**
 * A destructive tool (`destructiveHint` true or missing, as MCP defaults it) needs confirmation,
 * unless it has a dry-run parameter and is called with it set to true (a preview).
 */
export function needsConfirmation(tool: Pick<CatalogTool, 'annotations' | 'inputSchema'>, args: Record<string, unknown>): boolean {
  if (tool.annotations?.destructiveHint === false) return false;
  const properties = tool.inputSchema.properties;
  if (typeof properties !== 'object' || properties === null) return true;
  return !DRY_RUN_PARAMETERS.some((p) => Object.hasOwn(properties, p) && args[p] === true);
}

const CONFIRMATION_UNAVAILABLE =
  'the confirmation could not be checked: the shared record of used confirmations (Redis) is unavailable, so nothing was called; ' +
  'send the same call with the same `confirm` again shortly (if it then reads "already used", call without `confirm` for a new one)';

/**
 * Why a confirmation was not accepted. Without the shared record of used tokens the router fails
 * closed (`confirmation_unavailable`): a replayed token could otherwise write twice.
 */
export function confirmationRefusal(reason: ConfirmationRefusal): RouterError {
  switch (reason) {
    case 'store_unavailable':
      return new RouterError('confirmation_unavailable', CONFIRMATION_UNAVAILABLE);
    case 'used':
      return new RouterError('blocked', 'the confirmation was already used; call without `confirm` for a new one');
    case 'expired':
      return new RouterError('blocked', 'the confirmation has expired; call without `confirm` for a new one');
    case 'mismatch':
      return new RouterError('blocked', 'the confirmation was issued for another caller, tool or arguments');
    case 'foreign':
      return new RouterError(
        'blocked',
        'the confirmation was issued by another router process (before a restart, or by a replica that does not share the record of used confirmations); call without `confirm` for a new one',
      );
    default:
      return new RouterError('blocked', 'the confirmation is not one this router issued');
  }
}
