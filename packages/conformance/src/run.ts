/**
 * Runs the cases against one target, one after another, each within its deadline.
 *
 * @module
 */
import { createReadBudget } from './budget.js';
import { ALL_CASES } from './cases/index.js';
import type { Outcome } from './check.js';
import { type ConformanceConfig, type ConformanceConfigInput, resolveConfig } from './config.js';
import {
  type ConformanceCase,
  closeShared,
  createContext,
  type RunState,
  type Target,
  type TransportKind,
  transportOf,
} from './context.js';

/** The result of one case. */
export interface CaseResult {
  /** The case's id, e.g. `spec.empty-batch`. */
  readonly id: string;
  /** What the case checks, in one line. */
  readonly title: string;
  /** Whether the target passed it, failed it, or it did not apply (see `detail`). */
  readonly status: 'pass' | 'fail' | 'skip';
  /** What the target did (or why the case was skipped). */
  readonly detail: string;
  /** What the specification leaves open in this case, and what is accepted. */
  readonly ambiguity?: string;
  /** How long the case took, in milliseconds. */
  readonly durationMs: number;
}

/** The results of a run. */
export interface ConformanceReport {
  /** The target, as `http URL`, `ws URL` or `stdio 'COMMAND' (framing)`. */
  readonly target: string;
  /** The target's transport. */
  readonly transport: TransportKind;
  /** One result per case, in the order they ran. */
  readonly results: readonly CaseResult[];
  /** How many cases passed. */
  readonly passed: number;
  /** How many cases failed. */
  readonly failed: number;
  /** How many cases did not apply to the target. */
  readonly skipped: number;
  /** Whether no case failed. */
  readonly ok: boolean;
}

/** Options of {@link runConformance}. */
export interface RunConformanceOptions {
  /** The target: `{ http: url }`, `{ ws: url }` or `{ stdio: command, framing }`. */
  readonly target: Target;
  /** Method names, limits and features of the target; missing members take the defaults. @default DEFAULT_CONFIG */
  readonly config?: ConformanceConfigInput | undefined;
  /** Runs only the cases whose id starts with one of these (`spec.`, `id.beyond-2-53`). @default every case */
  readonly only?: readonly string[] | undefined;
  /** Called with each result as soon as its case has run. */
  readonly onResult?: ((result: CaseResult) => void) | undefined;
}

/**
 * Describes a target in a few words.
 *
 * @param target - the target
 * @returns e.g. `http http://127.0.0.1:8080/rpc`
 * @example
 * ```ts
 * describeTarget({ stdio: 'node server.js', framing: 'newline' }); // "stdio 'node server.js' (newline)"
 * ```
 */
export function describeTarget(target: Target): string {
  if ('http' in target) return `http ${target.http}`;
  if ('ws' in target) return `ws ${target.ws}`;
  return `stdio '${target.stdio}' (${target.framing})`;
}

/** The cases that apply to a transport. */
function casesFor(kind: TransportKind, only: readonly string[] | undefined): ConformanceCase[] {
  return ALL_CASES.filter(
    (c) =>
      (c.transports === undefined || c.transports.includes(kind)) &&
      (only === undefined || only.some((prefix) => c.id.startsWith(prefix))),
  );
}

/**
 * The ids of the cases that run against a transport.
 *
 * @param transport - `'http'`, `'ws'` or `'stdio'`
 * @returns the case ids in run order
 * @example
 * ```ts
 * caseIds('http').length; // how many cases an HTTP target gets
 * ```
 */
export function caseIds(transport: TransportKind): string[] {
  return casesFor(transport, undefined).map((c) => c.id);
}

/**
 * Runs the conformance cases against a target and reports each. Cases run one at a time; each has
 * `config.timeoutMs` to finish. A failed case gets the target a fresh connection for the next.
 *
 * @param options - the target, its configuration, a filter and a progress callback
 * @returns the report
 * @throws TypeError when the configuration is invalid (the target's failures are results, never
 *   thrown)
 * @example
 * ```ts
 * const report = await runConformance({ target: { http: 'http://127.0.0.1:8080/rpc' } });
 * console.log(`${report.passed} passed, ${report.failed} failed`);
 * ```
 */
export async function runConformance(options: RunConformanceOptions): Promise<ConformanceReport> {
  const config = resolveConfig(options.config);
  const kind = transportOf(options.target);
  const state: RunState = {
    shared: undefined,
    garbage: [],
    pings: 0,
    budget: createReadBudget(config.maxAnswerBytes),
  };
  const results: CaseResult[] = [];
  try {
    for (const c of casesFor(kind, options.only)) {
      const started = Date.now();
      const outcome = await runCase(c, options.target, config, state);
      const result: CaseResult = {
        id: c.id,
        title: c.title,
        status: outcome.status,
        detail: outcome.detail,
        ...(c.ambiguity === undefined ? {} : { ambiguity: c.ambiguity }),
        durationMs: Date.now() - started,
      };
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    await closeShared(state);
  }
  const count = (status: CaseResult['status']) => results.filter((r) => r.status === status).length;
  const failed = count('fail');
  return {
    target: describeTarget(options.target),
    transport: kind,
    results,
    passed: count('pass'),
    failed,
    skipped: count('skip'),
    ok: failed === 0,
  };
}

async function runCase(
  c: ConformanceCase,
  target: Target,
  config: ConformanceConfig,
  state: RunState,
): Promise<Outcome> {
  const missing = c.needs?.find((role) => config.methods[role] === null);
  if (missing !== undefined)
    return { status: 'skip', detail: `methods.${missing} is not configured` };
  const reason = c.skipWhen?.(config);
  if (reason !== undefined) return { status: 'skip', detail: reason };
  state.budget.reset();
  const { ctx, dispose } = createContext(target, config, state);
  let timer: NodeJS.Timeout | undefined;
  let outcome: Outcome;
  try {
    outcome = await Promise.race([
      c.run(ctx),
      new Promise<Outcome>((resolve) => {
        timer = setTimeout(
          () => resolve({ status: 'fail', detail: `timed out after ${config.timeoutMs} ms` }),
          config.timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    outcome = { status: 'fail', detail: `${(error as Error)?.message ?? String(error)}` };
  } finally {
    clearTimeout(timer);
  }
  await dispose();
  // Whatever the case concluded from a cut answer, the answer was too long.
  if (state.budget.exceeded) outcome = { status: 'fail', detail: state.budget.describe() };
  // After a failure the shared connection may hold late answers: start the next case afresh.
  if (outcome.status === 'fail') await closeShared(state);
  return outcome;
}
