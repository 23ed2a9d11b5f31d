/**
 * Running one call: a slot from the limiter (or a place in its queue), the middleware chain,
 * lookup, name mapping, validation and the handler, and the deadline (an abort, which core's
 * incoming runner answers at once). Synchronous all the way when the handler is.
 *
 * @module
 */
import {
  InvalidParamsError,
  MethodNotFoundError,
  RequestTimeoutError,
  ServerBusyError,
} from '@jsonrpc-kit/core';
import {
  formatIssues,
  isPromiseLike,
  runMiddleware,
  type StandardSchemaResult,
} from '@jsonrpc-kit/core/engine';
import type { Call } from './call.js';
import type { ContextReader } from './call-context.js';
import {
  canWait,
  forget,
  hasRoom,
  type Lane,
  type Limiter,
  laneOf,
  release,
  wait,
} from './limiter.js';
import type { Entry } from './registry.js';
import { arrangeParams } from './registry.js';
import type { Scope } from './scope.js';
import type { ServerMiddleware } from './types.js';

/** What the runner needs from the server. */
export interface RunnerConfig {
  readonly methods: ReadonlyMap<string, Entry>;
  /** The current middleware (replaced, never mutated, on change). */
  readonly middleware: () => readonly ServerMiddleware[];
  /** The default handler deadline in milliseconds; `0`: none. */
  readonly timeout: number;
  /** Reads the caller's context onto a call (the `callContext` option); `undefined`: off. */
  readonly readContext?: ContextReader | undefined;
  /** Decodes params before name mapping and validation (the server's codec); `undefined`: none. */
  readonly decode?: ((value: unknown) => unknown) | undefined;
}

/** The longest delay `setTimeout` holds; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** The answer to a call whose caller's deadline passed: the kit's timeout code, -32005. */
const deadlineExceeded = (): RequestTimeoutError =>
  new RequestTimeoutError("Request timed out: the caller's deadline passed");

function checked(result: StandardSchemaResult<unknown>): unknown {
  if (result.issues !== undefined) {
    throw new InvalidParamsError('Invalid params', formatIssues(result.issues));
  }
  return result.value;
}

/**
 * Creates the runner of one server.
 *
 * @param config - the registry, the middleware, the default deadline and the params decoder
 * @returns `run(call, scope)`: the result, a promise of it, or a throw with what the call failed with
 */
export function createRunner(config: RunnerConfig): (call: Call, scope: Scope) => unknown {
  const { methods, middleware: currentMiddleware, decode } = config;
  const defaultTimeout = config.timeout;
  const readContext = config.readContext;

  /** Innermost step: lookup, name mapping, validation, handler. */
  function invoke(call: Call): unknown {
    const entry = methods.get(call.method);
    // A request to a notification handler gets nothing it could answer with: as if not there.
    if (entry === undefined || (entry.kind === 'notification' && !call.notification)) {
      throw new MethodNotFoundError();
    }
    let params = arrangeParams(entry, decode === undefined ? call.params : decode(call.params));
    const schema = entry.schema;
    if (schema !== undefined) {
      const verdict = schema['~standard'].validate(params);
      if (isPromiseLike(verdict)) {
        return (verdict as Promise<StandardSchemaResult<unknown>>).then((v) =>
          entry.handler(checked(v), call),
        );
      }
      params = checked(verdict);
    }
    return entry.handler(params, call);
  }

  /** Runs a call's chain (sync when possible); throws or rejects with what the call failed with. */
  function start(call: Call): unknown {
    if (call.aborted) throw call.abortReason;
    const list = currentMiddleware();
    return list.length === 0 ? invoke(call) : runMiddleware(list, call, () => invoke(call));
  }

  /** Takes a slot (or queues for one), runs the call, frees the slot when the handler settles. */
  function limited(call: Call, limiter: Limiter, lane: Lane | undefined): unknown {
    if (hasRoom(limiter, lane)) {
      limiter.active++;
      if (lane !== undefined) lane.active++;
      let result: unknown;
      try {
        result = start(call);
      } catch (error) {
        release(limiter, lane);
        throw error;
      }
      if (!isPromiseLike(result)) {
        release(limiter, lane);
        return result;
      }
      return result.then(
        (value) => {
          release(limiter, lane);
          return value;
        },
        (error: unknown) => {
          release(limiter, lane);
          throw error;
        },
      );
    }
    if (!canWait(limiter, lane)) {
      if (lane !== undefined) forget(limiter, lane);
      throw new ServerBusyError();
    }
    return new Promise((resolve, reject) => {
      wait(limiter, lane, () => {
        if (call.aborted) {
          if (lane !== undefined) forget(limiter, lane);
          reject(call.abortReason);
          return;
        }
        try {
          resolve(limited(call, limiter, lane));
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /**
   * Arms the call's deadline and links it to its outer signal (the exchange's) while its handler
   * runs: either aborts the call, and core's runner answers it at once (a late result is dropped).
   * Both are disarmed when the handler settles.
   */
  function guard(
    call: Call,
    promise: PromiseLike<unknown>,
    timeout: number,
    callerDeadline = false,
  ): PromiseLike<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (timeout > 0) {
      timer = setTimeout(
        () =>
          call.abort(
            callerDeadline
              ? deadlineExceeded()
              : new RequestTimeoutError(`Request timed out after ${timeout} ms`),
          ),
        timeout,
      );
    }
    call.link();
    const done = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      call.unlink();
    };
    promise.then(done, done);
    return promise;
  }

  function run(call: Call, scope: Scope): unknown {
    // The caller's time left (the `callContext` option); a call whose time is up never runs.
    const left = readContext === undefined ? undefined : readContext(call);
    if (left !== undefined && left <= 0) throw deadlineExceeded();
    const limiter = scope.limiter;
    const client = scope.client;
    const result = limited(
      call,
      limiter,
      client === undefined || limiter.fair === undefined ? undefined : laneOf(limiter, client),
    );
    if (!isPromiseLike(result)) return result;
    const entry = methods.get(call.method);
    const timeout = entry?.timeout ?? defaultTimeout;
    // A deadline beyond what a timer holds (about 24.8 days) is as good as none.
    if (left !== undefined && left <= MAX_TIMER_MS && (timeout === 0 || left < timeout)) {
      return guard(call, result, left, true);
    }
    // A connection's cancel and close reach the call through the session's incoming table.
    if (timeout > 0 || scope.outer !== undefined) {
      return guard(call, result, timeout);
    }
    return result;
  }

  return run;
}
