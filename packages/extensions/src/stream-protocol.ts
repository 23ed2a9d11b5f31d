/**
 * The wire vocabulary of streams, shared by both sides: method names, the end code, limits.
 *
 * @module
 */
import { JsonRpcError, type JsonRpcErrorOptions } from '@jsonrpc-kit/core';

/** The method that pulls items: params `{ stream, max }`, result `{ items, done }`. */
export const STREAM_NEXT_METHOD: 'rpc.stream.next' = 'rpc.stream.next';

/** The method that stops a stream early: params `{ stream }`, result `{ cancelled }`. */
export const STREAM_CANCEL_METHOD: 'rpc.stream.cancel' = 'rpc.stream.cancel';

/**
 * The one member of the params of a call that re-opens a resumable stream after a reconnect:
 * `{ "rpc.stream.resume": { "from": <items held>, "params": <the original params> } }`.
 */
export const STREAM_RESUME_PARAM: 'rpc.stream.resume' = 'rpc.stream.resume';

/**
 * The error code of a pull on a stream that has ended, was cancelled, or never existed.
 * @default -32010
 */
export const STREAM_ENDED: -32010 = -32010;

/**
 * Default number of items a client asks for per pull (its prefetch window).
 * @default 100
 */
export const DEFAULT_STREAM_WINDOW: number = 100;

/**
 * Default cap, on the server, of items answered per pull (larger `max` values are clamped).
 * @default 1000
 */
export const DEFAULT_MAX_ITEMS_PER_PULL: number = 1000;

/**
 * Default number of streams open at once per connection (and once more for all stateless
 * exchanges); one more is refused with -32002.
 * @default 64
 */
export const DEFAULT_MAX_STREAMS: number = 64;

/**
 * Default milliseconds a stream may go unpulled before the server ends it.
 * @default 30000
 */
export const DEFAULT_STREAM_IDLE_TIMEOUT: number = 30_000;

/** The answer of `rpc.stream.next`. */
export interface StreamChunk<T = unknown> {
  /** Up to `max` items, in order. */
  readonly items: T[];
  /** `true` when the producer has finished: no pull follows. */
  readonly done: boolean;
}

/** The answer of a call whose handler returned an `AsyncIterable`. */
export interface StreamHandle {
  /** The stream's id, for `rpc.stream.next` and `rpc.stream.cancel`. */
  readonly stream: string;
  /** `true` when the producer can be resumed after a reconnect (see `resumable`). */
  readonly resumable?: boolean;
}

/** -32010: the stream has ended, was cancelled, or never existed. */
export class StreamEndedError extends JsonRpcError {
  /** The code of this class. */
  static readonly code: -32010 = STREAM_ENDED;
  /**
   * @param message - @default "Stream ended"
   * @param data - additional information (the stream id)
   * @param options - the call it belongs to, and a cause
   */
  constructor(message = 'Stream ended', data?: unknown, options?: JsonRpcErrorOptions) {
    super(STREAM_ENDED, message, data, options);
    this.name = 'StreamEndedError';
  }
}
