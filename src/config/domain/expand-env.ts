/** A `${VAR}` that names no environment variable and has no `:-default`. */
export interface MissingVariable {
  path: string;
  variable: string;
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` in every string of a parsed config document, so secrets
 * stay out of the file (architecture §3). `$${` escapes a literal `${`. Keys are not expanded: they are
 * names, not values. Returns the expanded copy and every unresolved variable with its field path.
 */
export function expandEnv(value: unknown, env: Readonly<Record<string, string | undefined>>): { value: unknown; missing: MissingVariable[] } {
  const missing: MissingVariable[] = [];
  const walk = (node: unknown, path: string): unknown => {
    if (typeof node === 'string') return expandString(node, env, (variable) => missing.push({ path, variable }));
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${path}[${i}]`));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) out[key] = walk(child, path ? `${path}.${key}` : key);
      return out;
    }
    return node;
  };
  return { value: walk(value, ''), missing };
}

function expandString(text: string, env: Readonly<Record<string, string | undefined>>, onMissing: (variable: string) => void): string {
  const parts = text.split('$${');
  return parts
    .map((part) =>
      part.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
        const found = env[name];
        if (found !== undefined && found !== '') return found;
        if (fallback !== undefined) return fallback;
        onMissing(name);
        return '';
      }),
    )
    .join('${');
}
