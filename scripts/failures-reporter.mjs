/**
 * A node:test reporter that writes one JSON line per failed test: `{file, name, error}`. Suites
 * that failed only because a test inside them failed are left out (the test is listed). Used by
 * scripts/test.mjs --failures, which the stress runner (scripts/test-stress.mjs) reads.
 */
export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const message = String(error?.cause?.message ?? error?.cause ?? error?.message ?? '')
      .split('\n')[0]
      .slice(0, 300);
    yield `${JSON.stringify({ file: file ?? null, name, failureType: error?.failureType ?? null, error: message })}\n`;
  }
}
