// Checks that every key of the chart's values.yaml has a comment just above it, so an operator
// reading values.yaml finds every setting explained. Keys are followed into the chart's own sections (objects whose schema lists
// their properties); Kubernetes objects passed through as they are (probes, resources, security
// contexts, marked with a "$comment" starting "Kubernetes" in the schema) are one documented key.
//
//   node .ci/check-values-doc.mjs <chart dir>
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const chart = process.argv[2];
if (!chart) {
  console.error('usage: node .ci/check-values-doc.mjs <chart dir>');
  process.exit(2);
}
const { parseDocument, isMap } = createRequire(import.meta.url)('yaml');
const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8'));
const doc = parseDocument(readFileSync(join(chart, 'values.yaml'), 'utf8'));

const undocumented = [];
let keys = 0;
function walk(map, section, path) {
  map.items.forEach((pair, i) => {
    const key = String(pair.key.value);
    keys++;
    // The yaml parser attaches a comment before a map's first key to the map (or the document).
    const comment = pair.key.commentBefore ?? (i === 0 ? (map.commentBefore ?? (path === '' ? doc.commentBefore : undefined)) : undefined);
    if (!comment?.trim()) undocumented.push(path + key);
    const sub = section?.properties?.[key];
    const passThrough = typeof sub?.$comment === 'string' && sub.$comment.startsWith('Kubernetes');
    if (isMap(pair.value) && sub?.properties && !passThrough) walk(pair.value, sub, `${path}${key}.`);
  });
}
walk(doc.contents, schema, '');
if (undocumented.length > 0) {
  console.error(`${chart}/values.yaml: keys without a comment above them: ${undocumented.join(', ')}`);
  process.exit(1);
}
console.log(`  values.yaml: all ${keys} keys commented`);
