/** Host names that always mean this machine (a Host header's name, without its port). */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * True for a loopback listen address or name: only this machine can reach it. Used where the
 * router relaxes a rule for local development (auth mode `none`, loopback origins).
 */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase();
  return LOOPBACK_NAMES.has(a) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}
