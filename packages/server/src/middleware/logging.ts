/**
 * Structured logging middleware: one entry per call, with its outcome and duration.
 *
 * @module
 */
import type { JsonRpcId } from '@jsonrpc-kit/core';
import { isJsonRpcError } from '@jsonrpc-kit/core';
import type { OptionNames } from '@jsonrpc-kit/core/engine';
import { checkOptionNames } from '@jsonrpc-kit/core/engine';
import type { MiddlewareContext, ServerMiddleware } from '../types.js';
import { errorCodeOf, errorMessageOf, monotonicNow } from './call-outcome.js';

/** Every name of {@link LoggingOptions}. */
const LOGGING_OPTION_NAMES: OptionNames<LoggingOptions> = { sink: true, redact: true, level: true };

/** Log levels, least to most severe. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const SEVERITY: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One structured log entry. */
export interface LogEntry {
  /** `debug` for call starts, `info` for successes, `warn` for errors answered with a `JsonRpcError`, `error` for unexpected failures (-32603). */
  readonly level: LogLevel;
  /** `"rpc.start"` or `"rpc.end"`. */
  readonly event: 'rpc.start' | 'rpc.end';
  /** The method called. */
  readonly method: string;
  /** The request id; absent for notifications. */
  readonly id?: JsonRpcId;
  /** Whether the call is a notification. */
  readonly notification: boolean;
  /** The params as the `redact` option returned them; absent without `redact`. */
  readonly params?: unknown;
  /** Milliseconds the call took (`rpc.end` only). */
  readonly durationMs?: number;
  /** Whether the call succeeded (`rpc.end` only). */
  readonly ok?: boolean;
  /** The error code answered (failures only). */
  readonly errorCode?: number;
  /** The error message answered (failures only; "Internal error" for unexpected throws). */
  readonly errorMessage?: string;
  /** The unexpected error itself (level `error` only), for the sink to record; never sent. */
  readonly error?: unknown;
  /** The transport kind (`"http"`, `"ws"`, …), when known. */
  readonly transport?: string;
  /** The peer's address, when known. */
  readonly remoteAddress?: string;
}

/** Options of {@link logging}. */
export interface LoggingOptions {
  /**
   * Receives each entry.
   * @default writes one JSON line per entry to `console.error` (stdout may carry the protocol)
   */
  readonly sink?: (entry: LogEntry) => void;
  /**
   * Returns what of the params may be logged. Without it, params are not logged at all (they may
   * hold secrets); pass `(params) => params` to log them as they are.
   */
  readonly redact?: (params: unknown, method: string) => unknown;
  /**
   * The least severe level written.
   * @default DEFAULT_LOG_LEVEL ("info")
   */
  readonly level?: LogLevel;
}

/**
 * The default least severe level logged.
 * @default "info"
 */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

function defaultSink(entry: LogEntry): void {
  const { error, ...rest } = entry;
  console.error(JSON.stringify(error instanceof Error ? { ...rest, error: error.message } : rest));
}

function baseEntry(
  ctx: MiddlewareContext,
  redact: LoggingOptions['redact'],
): Record<string, unknown> {
  const entry: Record<string, unknown> = { method: ctx.method, notification: ctx.notification };
  if (ctx.id !== undefined) entry.id = ctx.id;
  if (redact) entry.params = redact(ctx.params, ctx.method);
  if (ctx.transport.kind !== undefined) entry.transport = ctx.transport.kind;
  if (ctx.transport.remoteAddress !== undefined) entry.remoteAddress = ctx.transport.remoteAddress;
  return entry;
}

/**
 * Structured logging: an `rpc.end` entry per call (level `info` on success, `warn` for a
 * `JsonRpcError`, `error` for an unexpected failure, which is answered -32603), and an `rpc.start`
 * entry at level `debug`. A sink that throws is ignored; the call is not affected.
 *
 * @param options - sink, redaction, level
 * @returns the middleware
 * @example
 * ```ts
 * server.use(logging({
 *   sink: (entry) => logger[entry.level](entry),
 *   redact: (params) => ({ ...(params as object), password: undefined }),
 * }));
 * ```
 */
export function logging(options: LoggingOptions = {}): ServerMiddleware {
  checkOptionNames('logging', options, LOGGING_OPTION_NAMES);
  const sink = options.sink ?? defaultSink;
  const redact = options.redact;
  const threshold = SEVERITY[options.level ?? DEFAULT_LOG_LEVEL];
  const write = (entry: LogEntry): void => {
    if (SEVERITY[entry.level] < threshold) return;
    try {
      sink(entry);
    } catch {
      // A failing sink never fails the call.
    }
  };
  return async (ctx, next) => {
    const base = baseEntry(ctx, redact);
    if (threshold <= SEVERITY.debug) {
      write({ ...base, level: 'debug', event: 'rpc.start' } as unknown as LogEntry);
    }
    const started = monotonicNow();
    try {
      const result = await next();
      write({
        ...base,
        level: 'info',
        event: 'rpc.end',
        ok: true,
        durationMs: monotonicNow() - started,
      } as unknown as LogEntry);
      return result;
    } catch (error) {
      const code = errorCodeOf(error);
      const unexpected = !isJsonRpcError(error);
      const entry: Record<string, unknown> = {
        ...base,
        level: unexpected ? 'error' : 'warn',
        event: 'rpc.end',
        ok: false,
        durationMs: monotonicNow() - started,
        errorCode: code,
        errorMessage: errorMessageOf(error),
      };
      if (unexpected) entry.error = error;
      write(entry as unknown as LogEntry);
      throw error;
    }
  };
}
