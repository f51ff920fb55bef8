// Validates the objects of a rendered Helm chart (multi-document YAML from `helm template`).
//
//   node .ci/validate-manifests.mjs --models <dir> [--router-build <dir>] <rendered.yaml>
//
// For each object:
//  - its Kubernetes schema, through the `kubernetes-models` npm package (and
//    `@kubernetes-models/prometheus-operator` for the ServiceMonitor CRD), installed in <dir>
//    by .ci/chart-check: types, required fields, enums, formats;
//  - unknown fields, which those schemas let through while the API server's strict field
//    validation refuses them (a misspelt `readinessprobe` would otherwise pass): read from the
//    models' TypeScript declarations with the TypeScript parser;
//  - with --router-build (the router compiled from src/), the rendered router config file is
//    loaded by the router's own config loader, with the environment the Deployment gives it
//    (literal env plus the chart's Secret), so chart and router cannot drift apart.
// Prints each object's kind and name; exits 1 on the first file with any problem.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [value] = args.splice(at, 2).slice(1);
  return value;
};
const modelsDir = option('--models');
const routerBuild = option('--router-build');
if (!modelsDir || args.length !== 1) {
  console.error('usage: node .ci/validate-manifests.mjs --models <dir> [--router-build <dir>] <rendered.yaml>');
  process.exit(2);
}
const [file] = args;

// The project's own packages (yaml, typescript) and the validation models, each from its place.
const projectRequire = createRequire(import.meta.url);
const modelsRequire = createRequire(join(resolve(modelsDir), 'package.json'));
const { parseAllDocuments } = projectRequire('yaml');
const ts = projectRequire('typescript');

/** apiVersion → the models module that defines its kinds. */
function modelsModule(apiVersion) {
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

// ---- unknown fields, from the models' .d.ts files ----------------------------------------------

const sources = new Map();
function sourceOf(path) {
  let sf = sources.get(path);
  if (!sf) {
    sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    sources.set(path, sf);
  }
  return sf;
}

function declarationFile(fromFile, specifier) {
  const js = specifier.startsWith('.') ? resolve(dirname(fromFile), specifier) + '.js' : modelsRequire.resolve(specifier);
  return js.replace(/\.(m?js)$/, '.d.ts');
}

/** The interface or type alias that `name` denotes in `file` (following imports and export aliases). */
function resolveType(file, name, depth = 0) {
  if (depth > 5) return undefined;
  const sf = sourceOf(file);
  let local = name;
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st) && !st.moduleSpecifier && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) if (el.name.text === name) local = (el.propertyName ?? el.name).text;
    }
  }
  for (const st of sf.statements) {
    if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name.text === local) return { file, node: st };
  }
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !st.importClause?.namedBindings || !ts.isNamedImports(st.importClause.namedBindings)) continue;
    for (const el of st.importClause.namedBindings.elements) {
      if (el.name.text === local) {
        const from = declarationFile(file, st.moduleSpecifier.text);
        return resolveType(from, (el.propertyName ?? el.name).text, depth + 1);
      }
    }
  }
  return undefined;
}

const memberName = (m) => (m.name && (ts.isStringLiteral(m.name) || ts.isIdentifier(m.name)) ? m.name.text : undefined);

function checkMembers(value, members, file, path, problems) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const index = members.find((m) => ts.isIndexSignatureDeclaration(m));
  if (index) {
    for (const [key, child] of Object.entries(value)) checkType(child, index.type, file, `${path}.${key}`, problems);
    return;
  }
  const known = new Map();
  for (const m of members) if (ts.isPropertySignature(m) && memberName(m)) known.set(memberName(m), m.type);
  for (const [key, child] of Object.entries(value)) {
    if (!known.has(key)) problems.push(`${path}.${key}: unknown field`);
    else if (known.get(key)) checkType(child, known.get(key), file, `${path}.${key}`, problems);
  }
}

function checkType(value, type, file, path, problems) {
  if (value === null || value === undefined || !type) return;
  if (ts.isParenthesizedTypeNode(type)) return checkType(value, type.type, file, path, problems);
  if (ts.isArrayTypeNode(type)) {
    if (Array.isArray(value)) value.forEach((v, i) => checkType(v, type.elementType, file, `${path}[${i}]`, problems));
    return;
  }
  if (ts.isTypeLiteralNode(type)) return checkMembers(value, type.members, file, path, problems);
  if (ts.isUnionTypeNode(type)) {
    // A union of literals or scalars is the JSON schema's business; an object member is checked.
    const objectLike = type.types.find((t) => ts.isTypeLiteralNode(t) || ts.isTypeReferenceNode(t));
    if (objectLike && typeof value === 'object') checkType(value, objectLike, file, path, problems);
    return;
  }
  if (ts.isTypeReferenceNode(type)) {
    const name = type.typeName.getText();
    if (name === 'Array') {
      if (Array.isArray(value)) value.forEach((v, i) => checkType(v, type.typeArguments?.[0], file, `${path}[${i}]`, problems));
      return;
    }
    const found = resolveType(file, name);
    if (!found) return;
    if (ts.isTypeAliasDeclaration(found.node)) return checkType(value, found.node.type, found.file, path, problems);
    return checkMembers(value, found.node.members, found.file, path, problems);
  }
}

function unknownFields(object) {
  const entry = modelsRequire.resolve(`${modelsModule(object.apiVersion)}/${object.kind}`).replace(/\.(m?js)$/, '.d.ts');
  const found = resolveType(entry, `I${object.kind}`);
  if (!found) return [`${object.kind}: no type declaration found in the models`];
  const problems = [];
  checkMembers(object, found.node.members, found.file, object.kind, problems);
  return problems;
}

// ---- the router's own config loader ------------------------------------------------------------

function checkRouterConfig(objects) {
  const problems = [];
  let loadConfig;
  try {
    ({ loadConfig } = projectRequire(resolve(routerBuild, 'src/config/config.loader.js')));
  } catch (err) {
    return [`router config: cannot load the router's config loader from ${routerBuild}: ${err.message}`];
  }
  const deployment = objects.find((o) => o.kind === 'Deployment');
  const container = deployment.spec.template.spec.containers.find((c) => c.name === 'router');
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/home/router' };
  for (const e of container.env ?? []) if (typeof e.value === 'string') env[e.name] = e.value;
  const secretName = container.envFrom?.find((s) => s.secretRef)?.secretRef.name;
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === secretName);
  for (const [key, value] of Object.entries(secret?.data ?? {})) env[key] = Buffer.from(value, 'base64').toString('utf8');
  const configPath = env.CENTRALMCP_ROUTER_CONFIG;
  const volume = deployment.spec.template.spec.volumes.find((v) => v.name === 'config');
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === volume?.configMap?.name);
  if (!configMap) {
    console.log(`  router config: ConfigMap ${volume?.configMap?.name} is not rendered by the chart (existingConfigMap), not checked`);
    return problems;
  }
  const key = configPath.slice(configPath.lastIndexOf('/') + 1);
  try {
    const config = loadConfig(env, (path) => {
      if (path !== configPath) throw Object.assign(new Error(`unexpected path ${path}`), { code: 'ENOENT' });
      if (!(key in configMap.data)) throw Object.assign(new Error('no such key'), { code: 'ENOENT' });
      return configMap.data[key];
    });
    console.log(
      `  router config: ${config.backends.length} backends (${config.backends.map((b) => `${b.name}:${b.transport}`).join(', ')}), loaded by the router's config loader`,
    );
  } catch (err) {
    problems.push(`router config: ${err.message}`);
  }
  return problems;
}

// ---- main --------------------------------------------------------------------------------------

const objects = [];
const problems = [];
for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
  if (doc.errors.length > 0) {
    problems.push(`YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
    continue;
  }
  const object = doc.toJS();
  if (object !== null && object !== undefined) objects.push(object);
}

for (const object of objects) {
  const label = `${object.kind ?? '?'} ${object.metadata?.name ?? '?'}`;
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
    problems.push(`${label}: apiVersion and kind are required`);
    continue;
  }
  let Model;
  try {
    Model = modelsRequire(modelsModule(object.apiVersion))[object.kind];
  } catch {
    Model = undefined;
  }
  if (typeof Model !== 'function') {
    problems.push(`${label}: no schema for ${object.apiVersion} ${object.kind}`);
    continue;
  }
  if (!object.metadata?.name) problems.push(`${label}: metadata.name is required`);
  try {
    new Model(object).validate();
  } catch (err) {
    problems.push(`${label}: ${err.message}`);
  }
  for (const p of unknownFields(object)) problems.push(`${label}: ${p}`);
  console.log(`  ${object.apiVersion.padEnd(26)} ${object.kind.padEnd(24)} ${object.metadata?.name ?? ''}`);
}

if (routerBuild && problems.length === 0) problems.push(...checkRouterConfig(objects));

if (problems.length > 0) {
  console.error(`${file}: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`  ${objects.length} objects valid`);
