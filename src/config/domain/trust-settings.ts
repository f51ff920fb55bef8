import type { TrustConfig, TrustMode } from '../config.types';

/** Issue 14: every backend is listed again every five minutes unless configured otherwise. */
export const DEFAULT_RELIST_SECONDS = 300;

/** The file's `trust` block, as validated by the schema. */
export interface TrustInput {
  mode?: TrustMode;
  pinsFile?: string;
  approveNewBackends?: boolean;
  relistSeconds?: number;
}

/**
 * `trust` with its defaults: a pins file makes `enforce` the default (configuring pins and not
 * enforcing them would be a surprise); without one the mode is `off`, and `warn` or `enforce`
 * without a file to compare with is refused. `resolvePath` makes the file's path absolute.
 */
export function trustSettings(input: TrustInput | undefined, resolvePath: (p: string) => string, problems: string[]): TrustConfig {
  const pinsFile = input?.pinsFile !== undefined ? resolvePath(input.pinsFile) : undefined;
  const mode: TrustMode = input?.mode ?? (pinsFile !== undefined ? 'enforce' : 'off');
  if (mode !== 'off' && pinsFile === undefined) problems.push(`trust.pinsFile: required with trust.mode: ${mode}`);
  if (input?.approveNewBackends !== undefined && pinsFile === undefined) problems.push('trust.approveNewBackends: applies only with trust.pinsFile');
  return {
    mode,
    ...(pinsFile !== undefined ? { pinsFile } : {}),
    approveNewBackends: input?.approveNewBackends ?? false,
    relistSeconds: input?.relistSeconds ?? DEFAULT_RELIST_SECONDS,
  };
}
