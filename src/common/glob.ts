/**
 * Compiles one operator `backend:tool` glob: `*` is any run (including empty), `?` exactly one
 * character, everything else literal and case-sensitive (names resolve exactly, architecture §4). A
 * pattern without `:` applies to that tool on every backend. Shared by the read-only gate and the
 * access rules, so one pattern means the same thing in both places of the config.
 */
export function globToRegExp(pattern: string): RegExp {
  const full = pattern.includes(':') ? pattern : `*:${pattern}`;
  const body = [...full].map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 's');
}
