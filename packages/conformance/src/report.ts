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

const GROUP_NAMES = { limits: 'limits', policy: 'HTTP policy' } as const;

/**
 * Formats the summary of a run: the verdict's counts (the specification's cases, or every case
 * with `strict`) and the cases that failed, then the limit and HTTP policy cases apart when they
 * are not counted.
 *
 * @param report - the report
 * @returns e.g. `52 passed, 0 failed, 0 skipped of 52 specification cases against http http://…`
 *   and a line per group not counted
 * @example
 * ```ts
 * console.log(formatSummary(report));
 * ```
 */
export function formatSummary(report: ConformanceReport): string {
  const counted = report.strict ? report.results : report.results.filter((r) => r.group === 'spec');
  const what = report.strict
    ? 'cases (strict: limits and HTTP policy counted)'
    : 'specification cases';
  const lines = [
    `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped of ${counted.length} ${what} against ${report.target}`,
  ];
  const failedIds = (results: readonly CaseResult[]) =>
    results.filter((r) => r.status === 'fail').map((r) => r.id);
  if (report.failed > 0) lines.push(`failed: ${failedIds(counted).join(', ')}`);
  if (!report.strict) {
    const apart = (['limits', 'policy'] as const).filter((group) =>
      report.results.some((r) => r.group === group),
    );
    if (apart.length > 0) {
      lines.push('not counted (the specification says nothing about them; --strict counts them):');
      for (const group of apart) {
        const counts = report.groups[group];
        const failed = failedIds(report.results.filter((r) => r.group === group));
        lines.push(
          `  ${GROUP_NAMES[group]}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}`,
        );
      }
    }
  }
  return lines.join('\n');
}
