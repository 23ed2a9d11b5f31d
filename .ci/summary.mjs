// Prints `N passed, N failed` from vitest's JSON reports: the Node 20 pass (`pnpm test:ci`) and
// the Node 24 pass (`pnpm test:node24`), summed. A failed run never prints `0 failed`.
import { existsSync, readFileSync } from 'node:fs';

const status = Number(process.argv[2] ?? 0);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const name of ['results.json', 'results-node24.json']) {
  const file = new URL(`./${name}`, import.meta.url);
  // A missing report: the run stopped before that pass (install, build, lint, typecheck, or the
  // Node 20 pass failed).
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.numFailedTestSuites ?? 0);
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
