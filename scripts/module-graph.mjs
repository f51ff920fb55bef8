#!/usr/bin/env node
/**
 * Prints the import graph between the module folders of src/ as a Mermaid `graph` block, the
 * picture in docs/architecture.md §9:
 *
 *   node scripts/module-graph.mjs            the Mermaid block, to paste into §9
 *   node scripts/module-graph.mjs --table    each module and the modules it imports, one per line
 *
 * Imports are read as test/architecture.spec.ts reads them (relative `import` and `export … from`,
 * type-only ones included; specs left out), so the edges drawn are exactly the ones that test
 * checks against its `ALLOWED` table. Files at the root of src/ (main.ts, app.factory.ts …) wire
 * the modules together and are left out of the picture.
 *
 * An edge that other edges already imply (a → b when a → c → … → b exists) is left out, so the
 * picture shows the layers rather than every line between them; `--table` lists every edge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

function moduleOf(path) {
  const rel = relative(SRC, path);
  return rel.includes('/') ? rel.split('/')[0] : null;
}

/** module -> the other modules its files import */
const edges = new Map();
for (const path of sourceFiles(SRC)) {
  const from = moduleOf(path);
  if (from === null) continue;
  if (!edges.has(from)) edges.set(from, new Set());
  for (const match of readFileSync(path, 'utf8').matchAll(IMPORT)) {
    const spec = match[3];
    if (!spec.startsWith('.')) continue;
    const to = moduleOf(resolve(dirname(path), spec));
    if (to !== null && to !== from) edges.get(from).add(to);
  }
}
const modules = [...edges.keys()].sort();

if (process.argv.includes('--table')) {
  for (const m of modules) console.log(`${m}: ${[...edges.get(m)].sort().join(', ')}`);
  process.exit(0);
}

/** Whether `to` is reachable from `from` without taking the direct edge `from → to`. */
function reachableOtherwise(from, to) {
  const seen = new Set();
  const stack = [...edges.get(from)].filter((m) => m !== to);
  while (stack.length > 0) {
    const m = stack.pop();
    if (m === to) return true;
    if (seen.has(m)) continue;
    seen.add(m);
    stack.push(...(edges.get(m) ?? []));
  }
  return false;
}

/** Mermaid node ids cannot hold a dash. */
const id = (m) => m.replace(/-/g, '_');
const lines = ['```mermaid', 'graph TD'];
for (const m of modules) if (id(m) !== m) lines.push(`  ${id(m)}[${m}]`);
for (const m of modules) {
  for (const to of [...edges.get(m)].sort()) {
    if (!reachableOtherwise(m, to)) lines.push(`  ${id(m)} --> ${id(to)}`);
  }
}
lines.push('```');
console.log(lines.join('\n'));
