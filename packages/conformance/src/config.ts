/**
 * What the tool needs to know about a target: which of its methods play the specification's
 * parts, its limits, and the optional features it speaks.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { ErrorCode } from '@jsonrpc-kit/core';

/**
 * The roles a target's methods play. The names are those of the JSON-RPC 2.0 specification's
 * examples, plus `sleep` and `crash` for cancellation and error cases.
 *
 * | role | called as | must |
 * | --- | --- | --- |
 * | `subtract` | `[42, 23]` and `{ "minuend": 42, "subtrahend": 23 }` | answer `19` |
 * | `sum` | `[1, 2, 4]` | answer `7` |
 * | `get_data` | no params | answer `["hello", 5]` |
 * | `update`, `notify_hello`, `notify_sum` | notifications | exist or not; never answered |
 * | `foobar` | any | not exist (`-32601`) |
 * | `sleep` | `[ms]` | answer after `ms` milliseconds; cancellable |
 * | `crash` | no params | throw (an internal error) |
 */
export interface MethodNames {
  /** Subtracts its second positional (or `subtrahend`) param from its first (`minuend`): the spec's `subtract`. */
  readonly subtract: string | null;
  /** Answers the sum of its positional params: the spec's `sum`. */
  readonly sum: string | null;
  /** Answers `["hello", 5]` to no params: the spec's `get_data`. */
  readonly get_data: string | null;
  /** A notification target that accepts positional params: the spec's `update`. */
  readonly update: string | null;
  /** A notification target: the spec's `notify_hello`. */
  readonly notify_hello: string | null;
  /** A notification target: the spec's `notify_sum`. */
  readonly notify_sum: string | null;
  /** A method the target does NOT have: the spec's `foobar` (answered -32601). */
  readonly foobar: string | null;
  /** Waits its params' milliseconds before answering (cancellation and slow-input cases). */
  readonly sleep: string | null;
  /** Throws something that is not a JSON-RPC error (answered -32603, nothing leaked). */
  readonly crash: string | null;
}

/** A role of {@link MethodNames}. */
export type MethodRole = keyof MethodNames;

/** The cancellation notifications the tool knows. */
export type CancellationDialect = '$/cancelRequest' | 'notifications/cancelled';

/** What the tool knows about the target. Every member has a default ({@link DEFAULT_CONFIG}). */
export interface ConformanceConfig {
  /**
   * The target's method names per role; `null` skips the cases that need the role.
   *
   * @default the specification's names (`subtract`, `sum`, …), plus `sleep` and `crash`
   */
  readonly methods: MethodNames;
  /**
   * The largest request body the target accepts, in bytes; `null` skips the limit cases.
   *
   * @default 1048576 (1 MiB)
   */
  readonly maxBodyBytes: number | null;
  /** The error code of a body over `maxBodyBytes`. @default -32004 */
  readonly tooLargeCode: number;
  /** The longest batch the target accepts; `null` skips the batch limit cases. @default 100 */
  readonly maxBatchSize: number | null;
  /** The error code of a batch over `maxBatchSize`. @default -32003 */
  readonly batchTooLargeCode: number;
  /** The cancellation notifications the target understands; others are skipped. @default ['$/cancelRequest'] */
  readonly cancellation: readonly CancellationDialect[];
  /** How long one case may take, in milliseconds. @default 5000 */
  readonly timeoutMs: number;
  /** How long to wait for answers that must not come, in milliseconds. @default 30 */
  readonly quietMs: number;
  /**
   * The most bytes the tool reads from the target in one case (all its answers, on every
   * connection of the case). A target that sends more (an endless HTTP body, a huge WebSocket
   * message, stdout without end) fails the case, its connection is dropped, and the next case
   * goes on with a fresh one.
   *
   * @default DEFAULT_MAX_ANSWER_BYTES (16 MiB)
   */
  readonly maxAnswerBytes: number;
}

/**
 * The default of {@link ConformanceConfig.maxAnswerBytes}: 16 MiB, sixteen times the largest
 * request the default configuration sends, and far above what any case needs to read.
 *
 * @default 16777216
 * @example
 * ```ts
 * resolveConfig({}).maxAnswerBytes === DEFAULT_MAX_ANSWER_BYTES; // true
 * ```
 */
export const DEFAULT_MAX_ANSWER_BYTES = 16_777_216;

/** A partial configuration, as read from a JSON file or given to {@link runConformance}. */
export interface ConformanceConfigInput {
  /** Method names per role (see {@link ConformanceConfig.methods}). */
  readonly methods?: Partial<MethodNames> | undefined;
  /** See {@link ConformanceConfig.maxBodyBytes}. */
  readonly maxBodyBytes?: number | null | undefined;
  /** See {@link ConformanceConfig.tooLargeCode}. */
  readonly tooLargeCode?: number | undefined;
  /** See {@link ConformanceConfig.maxBatchSize}. */
  readonly maxBatchSize?: number | null | undefined;
  /** See {@link ConformanceConfig.batchTooLargeCode}. */
  readonly batchTooLargeCode?: number | undefined;
  /** See {@link ConformanceConfig.cancellation}. */
  readonly cancellation?: readonly CancellationDialect[] | undefined;
  /** See {@link ConformanceConfig.timeoutMs}. */
  readonly timeoutMs?: number | undefined;
  /** See {@link ConformanceConfig.quietMs}. */
  readonly quietMs?: number | undefined;
  /** See {@link ConformanceConfig.maxAnswerBytes}. */
  readonly maxAnswerBytes?: number | undefined;
}

/**
 * The defaults: the specification's method names, and the limits and cancellation of the kit's
 * conformance server (1 MiB bodies, -32004; batches of 100, -32003; `$/cancelRequest`); 16 MiB
 * read a case at most.
 *
 * @example
 * ```ts
 * DEFAULT_CONFIG.methods.subtract; // 'subtract'
 * ```
 */
export const DEFAULT_CONFIG: ConformanceConfig = Object.freeze({
  methods: Object.freeze({
    subtract: 'subtract',
    sum: 'sum',
    get_data: 'get_data',
    update: 'update',
    notify_hello: 'notify_hello',
    notify_sum: 'notify_sum',
    foobar: 'foobar',
    sleep: 'sleep',
    crash: 'crash',
  }),
  maxBodyBytes: 1024 * 1024,
  tooLargeCode: ErrorCode.RequestTooLarge,
  maxBatchSize: 100,
  batchTooLargeCode: ErrorCode.BatchTooLarge,
  cancellation: Object.freeze(['$/cancelRequest'] as const),
  timeoutMs: 5_000,
  quietMs: 30,
  maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES,
});

const DIALECTS: readonly string[] = ['$/cancelRequest', 'notifications/cancelled'];

function positiveInteger(value: unknown, name: string, allowNull: boolean): number | null {
  if (value === null && allowNull) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive integer${allowNull ? ' or null' : ''}`);
  }
  return value;
}

function integer(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer`);
  }
  return value;
}

/**
 * Completes a partial configuration with the defaults and checks every value.
 *
 * @param input - what the user gave (a parsed JSON file, say)
 * @returns the full configuration
 * @throws TypeError naming the first bad member
 * @example
 * ```ts
 * const config = resolveConfig({ methods: { subtract: 'minus' }, maxBodyBytes: null });
 * ```
 */
export function resolveConfig(input: ConformanceConfigInput = {}): ConformanceConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError('the configuration must be a JSON object');
  }
  const methods: Record<string, string | null> = { ...DEFAULT_CONFIG.methods };
  for (const [role, name] of Object.entries(input.methods ?? {})) {
    if (!Object.hasOwn(DEFAULT_CONFIG.methods, role)) {
      throw new TypeError(
        `methods.${role} is not a role (${Object.keys(DEFAULT_CONFIG.methods).join(', ')})`,
      );
    }
    if (name !== null && (typeof name !== 'string' || name === '')) {
      throw new TypeError(`methods.${role} must be a method name or null`);
    }
    methods[role] = name;
  }
  const cancellation = input.cancellation ?? DEFAULT_CONFIG.cancellation;
  if (!Array.isArray(cancellation) || cancellation.some((d) => !DIALECTS.includes(d))) {
    throw new TypeError(`cancellation must list some of ${DIALECTS.join(', ')}`);
  }
  const d = DEFAULT_CONFIG;
  const given = <T>(value: T | undefined, fallback: T): T =>
    value === undefined ? fallback : value;
  return {
    methods: methods as unknown as MethodNames,
    maxBodyBytes:
      input.maxBodyBytes === undefined
        ? d.maxBodyBytes
        : positiveInteger(input.maxBodyBytes, 'maxBodyBytes', true),
    tooLargeCode: integer(given(input.tooLargeCode, d.tooLargeCode), 'tooLargeCode'),
    maxBatchSize:
      input.maxBatchSize === undefined
        ? d.maxBatchSize
        : positiveInteger(input.maxBatchSize, 'maxBatchSize', true),
    batchTooLargeCode: integer(
      given(input.batchTooLargeCode, d.batchTooLargeCode),
      'batchTooLargeCode',
    ),
    cancellation: [...cancellation],
    timeoutMs: positiveInteger(given(input.timeoutMs, d.timeoutMs), 'timeoutMs', false)!,
    quietMs: positiveInteger(given(input.quietMs, d.quietMs), 'quietMs', false)!,
    maxAnswerBytes: positiveInteger(
      given(input.maxAnswerBytes, d.maxAnswerBytes),
      'maxAnswerBytes',
      false,
    )!,
  };
}

/**
 * Reads a configuration file (JSON) and completes it with the defaults.
 *
 * @param path - the file
 * @returns the full configuration
 * @throws TypeError when the file is not JSON or a member is bad; the file system's error when it
 *   cannot be read
 * @example
 * ```ts
 * const config = await loadConfig('conformance.json');
 * ```
 */
export async function loadConfig(path: string): Promise<ConformanceConfig> {
  const text = await readFile(path, 'utf8');
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return resolveConfig(input as ConformanceConfigInput);
}
