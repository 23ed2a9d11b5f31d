/**
 * Server side of streams: a handler may return an `AsyncIterable`; the call is answered with a
 * stream handle, and the caller pulls items with `rpc.stream.next` (see the package README for
 * the wire protocol). Resumable producers are in `stream-resumable.ts`.
 *
 * @module
 */
import { InvalidParamsError, type Peer, ServerBusyError } from '@jsonrpc-kit/core';
import type { Handler, MiddlewareContext, Server, ServerMethodOptions } from '@jsonrpc-kit/server';
import { defaultStreamProfile, endError, type StreamProfile } from './stream-profile.js';
import {
  DEFAULT_MAX_ITEMS_PER_PULL,
  DEFAULT_MAX_STREAMS,
  DEFAULT_STREAM_IDLE_TIMEOUT,
  STREAM_RESUME_PARAM,
  type StreamChunk,
} from './stream-protocol.js';
import { isResumable, openResumable, readResume } from './stream-resumable.js';

export { resumable } from './stream-resumable.js';

/** Options of {@link streams}. */
export interface StreamsOptions {
  /**
   * Most streams open at once per connection (and once more for all stateless exchanges).
   * @default DEFAULT_MAX_STREAMS (64)
   */
  readonly maxStreams?: number;
  /**
   * Most items answered per pull; a larger `max` is clamped.
   * @default DEFAULT_MAX_ITEMS_PER_PULL (1000)
   */
  readonly maxItemsPerPull?: number;
  /**
   * Milliseconds a stream may go unpulled before it is ended (`return()` on its iterator). `0`
   * keeps streams until their connection closes (never use `0` over HTTP).
   * @default DEFAULT_STREAM_IDLE_TIMEOUT (30000)
   */
  readonly idleTimeout?: number;
  /**
   * Once a pull holds at least one item, how many milliseconds it waits for the producer's next
   * item before answering with what it has. Fast producers fill whole pulls; slow ones are
   * delivered without waiting for `max` items.
   * @default 0 (the next macrotask)
   */
  readonly flushDelay?: number;
  /**
   * The wire form: {@link defaultStreamProfile} (`rpc.stream.*`, pages) or
   * {@link kotlinxStreamProfile} (the kotlinx-rpc draft's Flow protocol, one value per pull).
   * @default defaultStreamProfile
   */
  readonly profile?: StreamProfile;
}

type Table = Map<string, StreamState>;

interface StreamState {
  readonly id: string | number;
  readonly iterator: AsyncIterator<unknown>;
  readonly table: Table;
  /** A `next()` that had not settled when the last pull answered. */
  pending: Promise<IteratorResult<unknown>> | undefined;
  /** The producer failed after items were answered: the next pull throws this. */
  failure: { readonly error: unknown } | undefined;
  /** Pulls run one after another. */
  busy: Promise<unknown>;
  timer: ReturnType<typeof setTimeout> | undefined;
  ended: boolean;
  /** Ended by the idle timeout: kept for a while so that a late pull learns why. */
  expired: boolean;
}

const STALL: unique symbol = Symbol('stall');
const noop = (): void => {};

/**
 * Whether a value is an `AsyncIterable` (what a streaming handler returns).
 *
 * @param value - anything
 * @returns `true` for an async iterable
 * @example
 * ```ts
 * isAsyncIterable((async function* () {})()); // true
 * ```
 */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function readPullParams(
  params: unknown,
  maxItems: number,
  profile: StreamProfile,
): { stream: string | number; max: number } {
  const name = profile.idParam;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new InvalidParamsError('Invalid params', [
      { path: '', message: profile.page ? `Expected { ${name}, max }` : `Expected { ${name} }` },
    ]);
  }
  const record = params as Record<string, unknown>;
  const stream = record[name];
  if (typeof stream !== 'string' && (profile.ids === 'string' || typeof stream !== 'number')) {
    throw new InvalidParamsError('Invalid params', [
      { path: name, message: profile.ids === 'string' ? 'Expected a string' : 'Expected an id' },
    ]);
  }
  const max = profile.page ? record.max : undefined;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1)) {
    throw new InvalidParamsError('Invalid params', [
      { path: 'max', message: 'Expected an integer >= 1' },
    ]);
  }
  return { stream, max: profile.page ? Math.min((max as number) ?? maxItems, maxItems) : 1 };
}

/**
 * Serves streams on a server: handlers that return an `AsyncIterable` are answered with
 * `{ "stream": "<id>" }`, and `rpc.stream.next` / `rpc.stream.cancel` are registered (under
 * `options.profile`, that profile's handle and methods instead: with `kotlinxStreamProfile`, a
 * numeric flow id and `kotlinx.rpc.jsonrpc.internal.nextFlowValue` / `cancelFlow`). Streams
 * belong to their connection (another connection cannot pull them) and end when it closes; over
 * stateless exchanges (HTTP) ids are random UUIDs and the idle timeout reclaims abandoned streams.
 * The producer is pulled only as far as callers ask (no unbounded buffering), and its iterator's
 * `return()` runs when the stream is cancelled, times out, or its connection closes.
 *
 * @param server - the server
 * @param options - limits
 * @returns a function that removes the methods and the middleware and ends every open stream
 * @throws TypeError when the profile's `next` or `cancel` method is already registered
 * @example
 * ```ts
 * streams(server); // or streams(server, { profile: kotlinxStreamProfile })
 * server.method('count', async function* ({ to }: { to: number }) {
 *   for (let i = 1; i <= to; i++) yield i;
 * });
 * ```
 */
export function streams(server: Server, options: StreamsOptions = {}): () => void {
  const profile = options.profile ?? defaultStreamProfile;
  const maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
  const maxItems = Math.max(1, options.maxItemsPerPull ?? DEFAULT_MAX_ITEMS_PER_PULL);
  const idleTimeout = options.idleTimeout ?? DEFAULT_STREAM_IDLE_TIMEOUT;
  const flushDelay = options.flushDelay ?? 0;
  const byPeer = new WeakMap<Peer, Table>();
  const stateless: Table = new Map();
  const live = new Set<StreamState>();
  let counter = 0;

  const tableOf = (peer: Peer | undefined, create: boolean): Table | undefined => {
    if (peer === undefined) return stateless;
    let table = byPeer.get(peer);
    if (table === undefined && create) {
      const created: Table = new Map();
      table = created;
      byPeer.set(peer, created);
      const closed = (peer as { closed?: Promise<void> }).closed;
      closed?.then(() => {
        for (const state of created.values()) end(state);
      }, noop);
    }
    return table;
  };

  function forget(state: StreamState): void {
    if (state.timer !== undefined) clearTimeout(state.timer);
    state.timer = undefined;
    const key = String(state.id);
    if (state.table.get(key) === state) state.table.delete(key);
    live.delete(state);
  }

  function end(state: StreamState): void {
    if (state.ended) {
      forget(state);
      return;
    }
    state.ended = true;
    state.pending = undefined;
    forget(state);
    try {
      const done = state.iterator.return?.();
      if (done !== undefined) Promise.resolve(done).catch(noop);
    } catch {
      // A producer whose return() throws has ended all the same.
    }
  }

  function touch(state: StreamState): void {
    if (idleTimeout <= 0) return;
    if (state.timer !== undefined) clearTimeout(state.timer);
    const timer = setTimeout(() => expire(state), idleTimeout);
    (timer as { unref?: () => void }).unref?.();
    state.timer = timer;
  }

  /** Ends an unpulled stream, leaving a marker (for one more idle period) that a late pull reads. */
  function expire(state: StreamState): void {
    if (state.ended) return;
    end(state);
    state.expired = true;
    state.table.set(String(state.id), state);
    const timer = setTimeout(() => forget(state), idleTimeout);
    (timer as { unref?: () => void }).unref?.();
    state.timer = timer;
  }

  function ended(state: StreamState): Error {
    return state.expired
      ? endError(profile, state.id, 'Stream expired', 'idle')
      : endError(profile, state.id);
  }

  function open(
    ctx: MiddlewareContext,
    iterable: AsyncIterable<unknown>,
    canResume: boolean,
  ): unknown {
    const table = tableOf(ctx.peer, true)!;
    const iterator = iterable[Symbol.asyncIterator]();
    if (table.size >= maxStreams) {
      for (const other of table.values()) if (other.ended) forget(other);
    }
    if (table.size >= maxStreams) {
      Promise.resolve()
        .then(() => iterator.return?.())
        .catch(noop);
      throw new ServerBusyError('Too many open streams');
    }
    const id =
      ctx.peer === undefined
        ? crypto.randomUUID()
        : profile.ids === 'number'
          ? ++counter
          : `s${++counter}`;
    const state: StreamState = {
      id,
      iterator,
      table,
      pending: undefined,
      failure: undefined,
      busy: Promise.resolve(),
      timer: undefined,
      ended: false,
      expired: false,
    };
    table.set(String(id), state);
    live.add(state);
    touch(state);
    if (profile.handle === 'id') return id;
    return canResume && profile.resume
      ? { [profile.idParam]: id, resumable: true }
      : { [profile.idParam]: id };
  }

  /** One value per pull (profiles without pages): the end is the profile's end error. */
  async function pullOne(state: StreamState): Promise<unknown> {
    if (state.ended) {
      forget(state);
      throw ended(state);
    }
    let result: IteratorResult<unknown>;
    try {
      result = await Promise.resolve(state.iterator.next());
    } catch (error) {
      end(state);
      throw error;
    }
    if (state.ended) throw ended(state);
    if (result.done) {
      end(state);
      throw ended(state);
    }
    touch(state);
    return result.value;
  }

  async function pull(state: StreamState, max: number): Promise<StreamChunk> {
    if (state.ended) {
      forget(state);
      throw ended(state);
    }
    if (state.failure !== undefined) {
      const { error } = state.failure;
      end(state);
      throw error;
    }
    const items: unknown[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stall: Promise<typeof STALL> | undefined;
    try {
      while (items.length < max) {
        // Promise.resolve: the same promise for native iterators, a real one for hand-made thenables.
        const next = state.pending ?? Promise.resolve(state.iterator.next());
        state.pending = undefined;
        let result: IteratorResult<unknown> | typeof STALL;
        if (items.length === 0) {
          result = await next;
        } else {
          stall ??= new Promise((resolve) => {
            timer = setTimeout(resolve, flushDelay, STALL);
          });
          result = await Promise.race([next, stall]);
          if (result === STALL) {
            next.catch(noop);
            state.pending = next;
            break;
          }
        }
        if (state.ended) throw ended(state);
        if (result.done) {
          end(state);
          return { items, done: true };
        }
        items.push(result.value);
      }
    } catch (error) {
      if (items.length === 0 || state.ended) {
        end(state);
        throw error;
      }
      state.failure = { error };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    touch(state);
    return { items, done: false };
  }

  // `rpc.*` names are system methods; other profiles' names (kotlinx.rpc.…) are plain methods.
  const register = (name: string, handler: Handler, options: ServerMethodOptions): (() => void) =>
    name.startsWith('rpc.')
      ? server.registerSystem(name, handler, options)
      : server.method(name, handler, options);
  const removeNext = register(
    profile.next,
    (params: unknown, ctx) => {
      const { stream, max } = readPullParams(params, maxItems, profile);
      const state = tableOf(ctx.peer, false)?.get(String(stream));
      if (state === undefined) throw endError(profile, stream);
      const run = state.busy.then(() => (profile.page ? pull(state, max) : pullOne(state)));
      state.busy = run.catch(noop);
      return run;
    },
    {
      paramNames: profile.page ? [profile.idParam, 'max'] : [profile.idParam],
      description: profile.page ? 'Pulls up to `max` items of a stream.' : 'Pulls the next item.',
      // A pull lasts until the producer yields: the server's default handler deadline does not apply.
      timeout: 0,
    },
  );
  const cancelled = (value: boolean): unknown =>
    profile.cancelAnswer === 'null' ? null : { cancelled: value };
  const removeCancel = register(
    profile.cancel,
    (params: unknown, ctx) => {
      const { stream } = readPullParams(params, maxItems, profile);
      const state = tableOf(ctx.peer, false)?.get(String(stream));
      if (state === undefined || state.ended) {
        if (state) forget(state);
        return cancelled(false);
      }
      end(state);
      return cancelled(true);
    },
    { paramNames: [profile.idParam], description: 'Ends a stream early.' },
  );
  const removeMiddleware = server.use((ctx, next) => {
    const resume = profile.resume && !ctx.notification ? readResume(ctx.params) : undefined;
    if (resume !== undefined) ctx.params = resume.params;
    return next().then((result) => {
      if (ctx.notification) return result;
      if (isResumable(result)) return open(ctx, openResumable(result, resume?.from ?? 0), true);
      if (!isAsyncIterable(result)) return result;
      if (resume !== undefined) {
        Promise.resolve()
          .then(() => result[Symbol.asyncIterator]().return?.())
          .catch(noop);
        throw new InvalidParamsError('This stream is not resumable', [
          { path: STREAM_RESUME_PARAM, message: 'The method is not resumable' },
        ]);
      }
      return open(ctx, result, false);
    });
  });

  return () => {
    removeMiddleware();
    removeNext();
    removeCancel();
    for (const state of [...live]) end(state);
  };
}
