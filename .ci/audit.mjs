// The production dependency audit: `npm audit --omit=dev`, failing on any high or
// critical advisory that .ci/audit-exceptions.json does not document. A registry that cannot
// answer audits (some mirrors answer 405 on the advisories endpoint) gives no result: that is
// said loudly and does not fail the run, since nothing was learned either way.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let raw;
if (process.env.AUDIT_REPORT_FILE) {
  raw = readFileSync(process.env.AUDIT_REPORT_FILE, 'utf8'); // a saved `npm audit --json` report
} else
  try {
    raw = execFileSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 });
  } catch (err) {
    raw = err.stdout ?? ''; // npm audit exits non-zero when it finds advisories
  }
let report;
try {
  report = JSON.parse(raw);
} catch {
  console.log(`audit: npm printed no JSON report; no result.\n${raw.slice(0, 500)}`);
  process.exit(0);
}
if (report.statusCode !== undefined || report.error !== undefined) {
  console.log(`audit: NO RESULT: the registry's audit endpoint failed (${report.message ?? report.error?.summary ?? report.statusCode}).`);
  process.exit(0);
}
const exceptions = JSON.parse(readFileSync(new URL('./audit-exceptions.json', import.meta.url), 'utf8'));
const documented = new Set(exceptions.map((e) => e.advisory));
const serious = [];
for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
  for (const via of v.via ?? []) {
    if (typeof via !== 'object' || !['high', 'critical'].includes(via.severity)) continue;
    if (!documented.has(via.url)) serious.push(`${via.severity} ${name} ${via.range}: ${via.title} (${via.url})`);
  }
}
const counts = report.metadata?.vulnerabilities ?? {};
console.log(`audit: production dependencies: ${JSON.stringify(counts)}; ${exceptions.length} documented exception(s).`);
if (serious.length > 0) {
  console.log(`audit: high or critical advisories without a documented exception:\n${serious.join('\n')}`);
  process.exit(1);
}
