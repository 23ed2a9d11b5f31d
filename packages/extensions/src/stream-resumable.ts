/**
 * Resumable streams: a producer that starts from an index (`resumable()`), and the
 * `{ "rpc.stream.resume": { from, params? } }` params with which a caller re-opens a stream after
 * a dropped connection.
 *
 * @module
 */
import { InvalidParamsError } from '@jsonrpc-kit/core';
import type { Handler, HandlerContext } from '@jsonrpc-kit/server';
import { STREAM_RESUME_PARAM } from './stream-protocol.js';

/**
 * Makes a resumable stream producer: given the call's params and the index of the first item
 * to produce (`0` on the first call, the count of items the caller already holds on a resume),
 * it returns the items from there.
 *
 * @param params - the call's params (as the method's schema or `paramNames` shaped them)
 * @param from - index of the first item to produce
 * @param ctx - the call's context
 * @returns the items from `from` on
 */
export type ResumableProducer<P = any, T = unknown> = (
  params: P,
  from: number,
  ctx: HandlerContext,
) => AsyncIterable<T>;

const RESUMABLE: unique symbol = Symbol('jsonrpc-kit.resumable');

/** What a handler made by {@link resumable} returns; `streams()` turns it into a stream. */
export interface ResumableStream<T = unknown> {
  /** Opens the producer at item `from`. */
  readonly [RESUMABLE]: (from: number) => AsyncIterable<T>;
}

/**
 * Declares a streaming method resumable: after a dropped connection, a caller that held `n` items
 * re-opens it (see `streamCall`'s `resume`) and the producer is called again with `from = n`. The
 * stream handle says `"resumable": true`. Only the default profile resumes; under another profile
 * the producer just starts at `0`.
 *
 * @param producer - makes the items from an index on
 * @returns a handler for `server.method`
 * @example
 * ```ts
 * streams(server);
 * server.method(
 *   'count',
 *   resumable(async function* ([n]: [number], from) {
 *     for (let i = from + 1; i <= n; i++) yield i;
 *   }),
 * );
 * ```
 */
export function resumable<P = any, T = unknown>(
  producer: ResumableProducer<P, T>,
): Handler<P, ResumableStream<T>> {
  return (params, ctx) => ({ [RESUMABLE]: (from: number) => producer(params, from, ctx) });
}

/** Whether a handler's result was made by {@link resumable}. */
export function isResumable(value: unknown): value is ResumableStream {
  return typeof value === 'object' && value !== null && RESUMABLE in value;
}

/**
 * Opens a resumable stream's producer.
 *
 * @param stream - what the handler returned
 * @param from - index of the first item to produce
 * @returns the items from `from` on
 */
export function openResumable(stream: ResumableStream, from: number): AsyncIterable<unknown> {
  return stream[RESUMABLE](from);
}

export /** Reads `{ "rpc.stream.resume": { from, params? } }`, or `undefined` for any other params. */
function readResume(params: unknown): { from: number; params: unknown } | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const keys = Object.keys(params);
  if (keys.length !== 1 || keys[0] !== STREAM_RESUME_PARAM) return undefined;
  const resume = (params as Record<string, unknown>)[STREAM_RESUME_PARAM] as
    | { from?: unknown; params?: unknown }
    | null
    | undefined;
  const from = resume?.from;
  if (typeof from !== 'number' || !Number.isInteger(from) || from < 0) {
    throw new InvalidParamsError('Invalid params', [
      { path: `${STREAM_RESUME_PARAM}.from`, message: 'Expected an integer >= 0' },
    ]);
  }
  return { from, params: resume?.params };
}
