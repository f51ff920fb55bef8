import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/router';

/**
 * The house rules of STYLE.md that a reviewer should not have to check by eye: dependencies point
 * one way, no cycles, the SDK and the environment stay at their edges, domain code is pure.
 */

const SRC = join(ROOT, 'src');

/**
 * Which module folders each module may import from (architecture §9). `node
 * scripts/module-graph.mjs --table` lists who imports whom now; its Mermaid output is the picture
 * in §9, to be regenerated when an edge is added or dropped here.
 */
const ALLOWED: Record<string, readonly string[]> = {
  common: [],
  config: ['common'],
  registry: ['common', 'config', 'metrics'],
  gate: ['common', 'config', 'registry'],
  cursor: ['common', 'config'],
  answers: ['common', 'cursor'],
  backends: ['common', 'config', 'registry', 'metrics'],
  'rate-limit': ['common', 'config', 'metrics'],
  lifecycle: ['common', 'config'],
  auth: ['common', 'config'],
  access: ['common', 'config', 'registry', 'gate', 'trust'],
  audit: ['common', 'config'],
  tracing: ['common', 'config'],
  metrics: ['common', 'config', 'cursor'],
  trust: ['common', 'config', 'registry', 'backends', 'cursor', 'metrics', 'audit'],
  learning: ['common', 'config', 'registry', 'metrics', 'trust'],
  discovery: ['common', 'config', 'registry', 'gate', 'access', 'backends', 'trust', 'metrics', 'learning'],
  batch: [
    'common',
    'config',
    'gate',
    'rate-limit',
    'registry',
    'backends',
    'cursor',
    'answers',
    'metrics',
    'access',
    'audit',
    'lifecycle',
    'trust',
    'learning',
    'tracing',
  ],
  mcp: ['common', 'config', 'batch', 'discovery', 'answers', 'lifecycle', 'metrics', 'auth', 'audit', 'tracing'],
  health: ['common', 'config', 'backends', 'registry', 'lifecycle', 'rate-limit'],
  reload: ['common', 'config', 'metrics', 'audit'],
};

interface SourceFile {
  path: string;
  module: string;
  text: string;
  /** Resolved relative imports (runtime and type alike). */
  imports: string[];
  packages: { name: string; typeOnly: boolean }[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

function load(): SourceFile[] {
  return sourceFiles(SRC).map((path) => {
    const text = readFileSync(path, 'utf8');
    const rel = relative(SRC, path);
    const module = rel.includes('/') ? rel.split('/')[0] : '(root)';
    const imports: SourceFile['imports'] = [];
    const packages: SourceFile['packages'] = [];
    for (const match of text.matchAll(IMPORT)) {
      const typeOnly = match[2] !== undefined || /^\s*import\s+\{\s*(type\s+[^,}]+,?\s*)+\}/.test(match[0]);
      const spec = match[3];
      if (spec.startsWith('.')) imports.push(resolve(dirname(path), spec) + '.ts');
      else packages.push({ name: spec, typeOnly });
    }
    return { path, module, text, imports, packages };
  });
}

const files = load();
const moduleOf = (path: string) => {
  const rel = relative(SRC, path);
  return rel.includes('/') ? rel.split('/')[0] : '(root)';
};

test('every module imports only the modules it may (architecture §9)', () => {
  const violations: string[] = [];
  for (const file of files) {
    if (file.module === '(root)') continue;
    const allowed = ALLOWED[file.module];
    assert.ok(allowed, `module ${file.module} is not in the architecture map`);
    for (const target of file.imports) {
      const to = moduleOf(target);
      if (to !== file.module && !allowed.includes(to)) violations.push(`${relative(SRC, file.path)} → ${to}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('no import cycles between files, type imports included, and no forwardRef', () => {
  // A type-only circle is still two files that cannot be understood apart, and the next runtime
  // import along it makes it a real one: it counts.
  const graph = new Map(files.map((f) => [f.path, f.imports]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const visit = (node: string, trail: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') {
      cycles.push([...trail.slice(trail.indexOf(node)), node].map((p) => relative(SRC, p)).join(' → '));
      return;
    }
    state.set(node, 'visiting');
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
  assert.deepEqual(cycles, []);
  assert.deepEqual(
    files.filter((f) => /\bforwardRef\s*\(/.test(f.text)).map((f) => f.path),
    [],
  );
});

test('the environment is read only in config/', () => {
  const readers = files.filter((f) => /process\.env\b/.test(f.text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))).map((f) => relative(SRC, f.path));
  assert.deepEqual(
    readers.filter((p) => !p.startsWith('config/')),
    [],
  );
});

test('the MCP SDK is imported at runtime only in backends/ and mcp/', () => {
  const offenders = files
    .filter((f) => !['backends', 'mcp'].includes(f.module))
    .filter((f) => f.packages.some((p) => p.name.startsWith('@modelcontextprotocol/sdk') && !p.typeOnly))
    .map((f) => relative(SRC, f.path));
  assert.deepEqual(offenders, []);
});

test('credentials are verified only in auth/: jose is imported nowhere else', () => {
  // Static and dynamic imports alike: jose is an ES module, loaded with import() from CommonJS.
  const offenders = files.filter((f) => f.module !== 'auth' && /['"]jose['"]/.test(f.text)).map((f) => relative(SRC, f.path));
  assert.deepEqual(offenders, []);
});

test('domain/ code is pure: no Nest, no clock, no environment, no I/O', () => {
  const offenders = files
    .filter((f) => f.path.includes('/domain/'))
    .filter(
      (f) =>
        f.packages.some((p) => p.name.startsWith('@nestjs/') || ['node:fs', 'node:child_process', 'node:net', 'node:http'].includes(p.name)) ||
        /\bDate\.now\(|new Date\(\)|process\.env|Math\.random\(/.test(f.text),
    )
    .map((f) => relative(SRC, f.path));
  assert.deepEqual(offenders, []);
});

/** Domain files that hold only constants: nothing in them can be wrong in a way a spec would catch. */
const CONSTANTS_ONLY = new Set(['backends/domain/limits.ts']);

test('every domain file with logic has its spec beside it (`x.spec.ts` or `x.<aspect>.spec.ts`)', () => {
  const missing = files
    .filter((f) => f.path.includes('/domain/') && !CONSTANTS_ONLY.has(relative(SRC, f.path)))
    .filter((f) => {
      const stem = f.path.slice(0, -'.ts'.length);
      const name = stem.slice(stem.lastIndexOf('/') + 1);
      return !readdirSync(dirname(f.path)).some((entry) => entry === `${name}.spec.ts` || (entry.startsWith(`${name}.`) && entry.endsWith('.spec.ts')));
    })
    .map((f) => relative(SRC, f.path));
  assert.deepEqual(missing, []);
});

test('named exports only, and no barrel index files inside modules', () => {
  assert.deepEqual(
    files.filter((f) => /^export default /m.test(f.text)).map((f) => relative(SRC, f.path)),
    [],
  );
  assert.deepEqual(
    files.filter((f) => f.path.endsWith('/index.ts')).map((f) => relative(SRC, f.path)),
    [],
  );
});
