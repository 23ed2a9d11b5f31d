/**
 * The report, for people (one line per case and a summary) and for machines (JSON).
 *
 * @module
 */
import type { CaseResult, ConformanceReport } from './run.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/**
 * Formats one result as a line (and, for a case the specification leaves open, a second line
 * saying what is accepted).
 *
 * @param result - a case result
 * @returns the text, without a final newline
 * @example
 * ```ts
 * formatResult(result); // 'PASS spec.empty-batch — error -32600, id null'
 * ```
 */
export function formatResult(result: CaseResult): string {
  const line = `${LABEL[result.status]} ${result.id} — ${result.detail}`;
  return result.ambiguity === undefined || result.status === 'skip'
    ? line
    : `${line}\n     ambiguous: ${result.ambiguity}`;
}

/**
 * Formats the summary of a run.
 *
 * @param report - the report
 * @returns e.g. `61 passed, 0 failed, 2 skipped of 63 cases against http http://…`
 * @example
 * ```ts
 * console.log(formatSummary(report));
 * ```
 */
export function formatSummary(report: ConformanceReport): string {
  const total = report.results.length;
  const lines = [
    `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped of ${total} cases against ${report.target}`,
  ];
  if (report.failed > 0) {
    lines.push(
      `failed: ${report.results
        .filter((r) => r.status === 'fail')
        .map((r) => r.id)
        .join(', ')}`,
    );
  }
  return lines.join('\n');
}
