/**
 * Metrics middleware and a built-in in-memory registry: calls, durations, error codes and
 * calls in flight, per method.
 *
 * @module
 */
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import type { ServerMiddleware } from '../types.js';
import { errorCodeOf, monotonicNow } from './call-outcome.js';

/** Receives the start and the end of every call. Wire it to Prometheus, OpenTelemetry, …. */
export interface MetricsRecorder {
  /**
   * A call started.
   *
   * @param method - the method called
   */
  onStart(method: string): void;
  /**
   * A call ended.
   *
   * @param method - the method called
   * @param durationMs - how long it took, in milliseconds
   * @param errorCode - the error code it was answered with; `undefined` on success
   */
  onEnd(method: string, durationMs: number, errorCode?: number): void;
}

/** The numbers of one method. */
export interface MethodMetrics {
  /** Calls that ended. */
  readonly count: number;
  /** Calls that ended with an error. */
  readonly errors: number;
  /** Calls running now. */
  readonly inFlight: number;
  /** Sum of the durations, in milliseconds. */
  readonly durationSumMs: number;
  /** Cumulative histogram: for each bucket's upper bound, the calls that took at most that long. */
  readonly buckets: ReadonlyArray<{
    /** The bucket's upper bound, in milliseconds. */
    readonly le: number;
    /** Calls that took at most `le` milliseconds. */
    readonly count: number;
  }>;
  /** Calls that ended with each error code. */
  readonly errorCodes: Readonly<Record<string, number>>;
}

/** A point-in-time copy of a registry. */
export interface MetricsSnapshot {
  /** Numbers per method. */
  readonly methods: Readonly<Record<string, MethodMetrics>>;
}

/** The in-memory registry of {@link createMetricsRegistry}. */
export interface MetricsRegistry extends MetricsRecorder {
  /**
   * Copies the current numbers.
   *
   * @returns the snapshot
   */
  snapshot(): MetricsSnapshot;
  /**
   * Renders the numbers in the Prometheus text exposition format.
   *
   * @param prefix - metric name prefix
   * @returns the text
   */
  toPrometheus(prefix?: string): string;
  /** Forgets everything (calls in flight keep counting). */
  reset(): void;
}

/** Options of {@link createMetricsRegistry}. */
export interface MetricsRegistryOptions {
  /**
   * Upper bounds of the duration histogram, in milliseconds, ascending.
   * @default DEFAULT_DURATION_BUCKETS
   */
  readonly buckets?: readonly number[];
  /**
   * How many distinct method names are tracked; later names are counted under `"other"` (callers
   * can send any name, and unknown methods pass through middleware too).
   * @default DEFAULT_MAX_METHODS (1000)
   */
  readonly maxMethods?: number;
}

/**
 * Default duration buckets in milliseconds.
 * @default [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]
 */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = Object.freeze([
  1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
]);

/**
 * Default bound on distinct method names in a registry.
 * @default 1000
 */
export const DEFAULT_MAX_METHODS: number = 1000;

/** The name under which methods beyond `maxMethods` are counted. */
export const OTHER_METHOD: 'other' = 'other';

interface Cell {
  count: number;
  errors: number;
  inFlight: number;
  sum: number;
  readonly buckets: number[];
  readonly codes: Map<number, number>;
}

/**
 * Creates an in-memory metrics registry: per method, calls, errors, error codes, calls in flight
 * and a duration histogram. Bounded: at most `maxMethods` names.
 *
 * @param options - histogram buckets and the method bound
 * @returns the registry
 * @throws TypeError when the buckets are not ascending finite numbers
 * @example
 * ```ts
 * const registry = createMetricsRegistry();
 * server.use(metrics({ registry }));
 * // later: registry.snapshot().methods.add.count, or registry.toPrometheus()
 * ```
 */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  checkOptionNames('createMetricsRegistry', options, REGISTRY_OPTION_NAMES);
  const bounds = options.buckets ?? DEFAULT_DURATION_BUCKETS;
  for (let i = 0; i < bounds.length; i++) {
    if (!Number.isFinite(bounds[i]) || (i > 0 && bounds[i]! <= bounds[i - 1]!)) {
      throw new TypeError('Histogram buckets must be ascending finite numbers');
    }
  }
  const maxMethods = options.maxMethods ?? DEFAULT_MAX_METHODS;
  let cells = new Map<string, Cell>();

  const cell = (method: string): Cell => {
    let c = cells.get(method);
    if (c === undefined) {
      const name = cells.size >= maxMethods ? OTHER_METHOD : method;
      c = cells.get(name);
      if (c === undefined) {
        c = {
          count: 0,
          errors: 0,
          inFlight: 0,
          sum: 0,
          buckets: bounds.map(() => 0),
          codes: new Map(),
        };
        cells.set(name, c);
      }
    }
    return c;
  };

  const snapshotOf = (c: Cell): MethodMetrics => ({
    count: c.count,
    errors: c.errors,
    inFlight: c.inFlight,
    durationSumMs: c.sum,
    buckets: bounds.map((le, i) => ({ le, count: c.buckets[i]! })),
    errorCodes: Object.fromEntries([...c.codes].map(([code, n]) => [String(code), n])),
  });

  return {
    onStart(method) {
      cell(method).inFlight++;
    },
    onEnd(method, durationMs, errorCode) {
      const c = cell(method);
      c.inFlight = Math.max(0, c.inFlight - 1);
      c.count++;
      c.sum += durationMs;
      for (let i = bounds.length - 1; i >= 0 && durationMs <= bounds[i]!; i--) c.buckets[i]!++;
      if (errorCode !== undefined) {
        c.errors++;
        c.codes.set(errorCode, (c.codes.get(errorCode) ?? 0) + 1);
      }
    },
    snapshot() {
      const methods: Record<string, MethodMetrics> = Object.create(null);
      for (const [name, c] of cells) methods[name] = snapshotOf(c);
      return { methods };
    },
    toPrometheus(prefix = 'jsonrpc') {
      const label = (s: string): string =>
        s.replace(/[\\"\n]/g, (ch) => (ch === '\n' ? '\\n' : `\\${ch}`));
      const lines: string[] = [
        `# HELP ${prefix}_requests_total Calls that ended.`,
        `# TYPE ${prefix}_requests_total counter`,
      ];
      for (const [name, c] of cells)
        lines.push(`${prefix}_requests_total{method="${label(name)}"} ${c.count}`);
      lines.push(`# HELP ${prefix}_errors_total Calls that ended with an error, by code.`);
      lines.push(`# TYPE ${prefix}_errors_total counter`);
      for (const [name, c] of cells) {
        for (const [code, n] of c.codes) {
          lines.push(`${prefix}_errors_total{method="${label(name)}",code="${code}"} ${n}`);
        }
      }
      lines.push(`# HELP ${prefix}_in_flight Calls running now.`);
      lines.push(`# TYPE ${prefix}_in_flight gauge`);
      for (const [name, c] of cells)
        lines.push(`${prefix}_in_flight{method="${label(name)}"} ${c.inFlight}`);
      lines.push(`# HELP ${prefix}_duration_ms Call durations in milliseconds.`);
      lines.push(`# TYPE ${prefix}_duration_ms histogram`);
      for (const [name, c] of cells) {
        const m = label(name);
        bounds.forEach((le, i) => {
          lines.push(`${prefix}_duration_ms_bucket{method="${m}",le="${le}"} ${c.buckets[i]}`);
        });
        lines.push(`${prefix}_duration_ms_bucket{method="${m}",le="+Inf"} ${c.count}`);
        lines.push(`${prefix}_duration_ms_sum{method="${m}"} ${c.sum}`);
        lines.push(`${prefix}_duration_ms_count{method="${m}"} ${c.count}`);
      }
      return `${lines.join('\n')}\n`;
    },
    reset() {
      const running = cells;
      cells = new Map();
      for (const [name, c] of running) if (c.inFlight > 0) cell(name).inFlight = c.inFlight;
    },
  };
}

/** Every name of {@link MetricsRegistryOptions}. */
const REGISTRY_OPTION_NAMES: OptionNames<MetricsRegistryOptions> = {
  buckets: true,
  maxMethods: true,
};

/** Every name of {@link MetricsOptions}. */
const METRICS_OPTION_NAMES: OptionNames<MetricsOptions> = { registry: true };

/** Options of {@link metrics}. */
export interface MetricsOptions {
  /** Where the numbers go: a {@link createMetricsRegistry} registry or your own recorder. */
  readonly registry: MetricsRecorder;
}

/**
 * Metrics middleware: tells the recorder when each call starts and ends, with its duration and
 * the error code it was answered with (-32603 for unexpected failures). A recorder that throws is
 * ignored.
 *
 * @param options - the recorder
 * @returns the middleware
 * @example
 * ```ts
 * const registry = createMetricsRegistry();
 * server.use(metrics({ registry }));
 * ```
 */
export function metrics(options: MetricsOptions): ServerMiddleware {
  checkOptionNames('metrics', options, METRICS_OPTION_NAMES);
  const recorder = options.registry;
  const end = (method: string, started: number, code?: number): void => {
    try {
      recorder.onEnd(method, monotonicNow() - started, code);
    } catch {
      // A failing recorder never fails the call.
    }
  };
  return async (ctx, next) => {
    const method = ctx.method;
    try {
      recorder.onStart(method);
    } catch {
      // As above.
    }
    const started = monotonicNow();
    try {
      const result = await next();
      end(method, started);
      return result;
    } catch (error) {
      end(method, started, errorCodeOf(error));
      throw error;
    }
  };
}
