// Prints `N passed, N failed` from vitest's JSON report (written by `pnpm test:ci`).
import { existsSync, readFileSync } from 'node:fs';

const status = Number(process.argv[2] ?? 0);
const file = new URL('./results.json', import.meta.url);
if (!existsSync(file)) {
  // The run stopped before the tests (install, build, lint or typecheck failed).
  console.log(`0 passed, ${status === 0 ? 0 : 1} failed`);
} else {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const failed = report.numFailedTests + (report.numFailedTestSuites ?? 0);
  const skipped = report.numPendingTests + (report.numTodoTests ?? 0);
  console.log(
    `${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
  );
}
