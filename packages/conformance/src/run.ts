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

/**
 * What a case checks, and so whether it counts in the verdict:
 * - `spec`: what the JSON-RPC 2.0 specification and the transport's own standard require (RFC
 *   6455, the stdio framings, the cancellation dialects the configuration lists), and that the
 *   target keeps serving (`robust.*`). These make the verdict.
 * - `limits`: the limits the configuration states (`limits.*`: `maxBodyBytes`, `maxBatchSize`),
 *   which the specification does not have.
 * - `policy`: the common HTTP status policy (`http.*`); the specification says nothing of HTTP.
 *
 * `limits` and `policy` are reported apart and count only with `strict`.
 */
export type CaseGroup = 'spec' | 'limits' | 'policy';

/** The cases of a group a report counts. */
export interface GroupCounts {
  /** How many passed. */
  readonly passed: number;
  /** How many failed. */
  readonly failed: number;
  /** How many did not apply. */
  readonly skipped: number;
}

/**
 * The group of a case, from its id.
 *
 * @param id - a case id
 * @returns `limits` for `limits.*`, `policy` for `http.*`, `spec` otherwise
 * @example
 * ```ts
 * caseGroup('http.get'); // 'policy'
 * ```
 */
export function caseGroup(id: string): CaseGroup {
  if (id.startsWith('limits.')) return 'limits';
  if (id.startsWith('http.')) return 'policy';
  return 'spec';
}

/** The result of one case. */
export interface CaseResult {
  /** The case's id, e.g. `spec.empty-batch`. */
  readonly id: string;
  /** Whether it checks the specification, a stated limit, or the HTTP policy. */
  readonly group: CaseGroup;
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
  /** One result per case, in the order they ran, of every group. */
  readonly results: readonly CaseResult[];
  /** Whether the limit and policy cases count in the verdict (the `strict` option). */
  readonly strict: boolean;
  /** The counts of each group, counted in the verdict or not. */
  readonly groups: Readonly<Record<CaseGroup, GroupCounts>>;
  /** How many cases of the verdict passed: the `spec` group's, or every group's with `strict`. */
  readonly passed: number;
  /** How many cases of the verdict failed. */
  readonly failed: number;
  /** How many cases of the verdict did not apply to the target. */
  readonly skipped: number;
  /** Whether no case of the verdict failed. */
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
  /**
   * Counts the limit (`limits.*`) and HTTP policy (`http.*`) cases in the verdict too. They run
   * and are reported either way.
   *
   * @default false
   */
  readonly strict?: boolean | undefined;
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
 * The verdict (`passed`, `failed`, `skipped`, `ok`) counts the specification's cases (group
 * `spec`) unless `strict` is set; the limit and HTTP policy cases are counted apart in `groups`.
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
        group: caseGroup(c.id),
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
  const strict = options.strict === true;
  const countsOf = (of: readonly CaseResult[]): GroupCounts => {
    const count = (status: CaseResult['status']) => of.filter((r) => r.status === status).length;
    return { passed: count('pass'), failed: count('fail'), skipped: count('skip') };
  };
  const inGroup = (group: CaseGroup) => results.filter((r) => r.group === group);
  const verdict = countsOf(strict ? results : inGroup('spec'));
  return {
    target: describeTarget(options.target),
    transport: kind,
    results,
    strict,
    groups: {
      spec: countsOf(inGroup('spec')),
      limits: countsOf(inGroup('limits')),
      policy: countsOf(inGroup('policy')),
    },
    ...verdict,
    ok: verdict.failed === 0,
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
