import { TRUST_DEFAULTS } from '../config.defaults';
import type { TrustDto } from '../config.schema';
import type { TrustConfig, TrustMode } from '../config.types';
import { withDefaults } from './defaults';

/**
 * `trust` with its defaults: a pins file makes `enforce` the default (configuring pins and not
 * enforcing them would be a surprise); without one the mode is `off`, and `warn` or `enforce`
 * without a file to compare with is refused. `resolvePath` makes the file's path absolute.
 */
export function trustSettings(input: TrustDto | undefined, resolvePath: (p: string) => string, problems: string[]): TrustConfig {
  const pinsFile = input?.pinsFile !== undefined ? resolvePath(input.pinsFile) : undefined;
  const mode: TrustMode = input?.mode ?? (pinsFile !== undefined ? 'enforce' : TRUST_DEFAULTS.mode);
  if (mode !== 'off' && pinsFile === undefined) problems.push(`trust.pinsFile: required with trust.mode: ${mode}`);
  if (input?.approveNewBackends !== undefined && pinsFile === undefined) problems.push('trust.approveNewBackends: applies only with trust.pinsFile');
  return { ...withDefaults(input, TRUST_DEFAULTS), mode, ...(pinsFile !== undefined ? { pinsFile } : {}) };
}
