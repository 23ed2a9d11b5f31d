/**
 * Client side of streams: call a streaming method and iterate its items, pulled in windows with
 * one pull kept in flight ahead of the consumer.
 *
 * @module
 */
import {
  AbortError,
  isJsonRpcError,
  type JsonRpcParams,
  type Peer,
  ProtocolError,
} from '@jsonrpc-kit/core';
import {
  DEFAULT_STREAM_WINDOW,
  STREAM_CANCEL_METHOD,
  STREAM_ENDED,
  STREAM_NEXT_METHOD,
} from './stream-protocol.js';

/** Options of {@link streamCall}. */
export interface StreamCallOptions {
  /**
   * Items asked for per pull. The client keeps at most one pull in flight and asks for the next
   * window only while it holds fewer than `window` unread items, so at most `2 × window` items
   * wait on the client.
   * @default DEFAULT_STREAM_WINDOW (100)
   */
  readonly window?: number;
  /** Aborts the stream: the loop throws an `AbortError` and the producer is cancelled. */
  readonly signal?: AbortSignal;
  /**
   * Milliseconds each round trip may take; `0` waits forever. Unset, the opening call uses the
   * client's default timeout and pulls wait as long as the producer takes.
   */
  readonly timeout?: number;
}

/** The iterable a {@link streamCall} returns. */
export interface StreamIterable<T> extends AsyncIterableIterator<T> {
  /**
   * Stops the stream early (what `break` in a `for await` does): the producer is cancelled.
   *
   * @returns when the server confirmed (errors are ignored)
   */
  return(): Promise<IteratorResult<T, undefined>>;
}

const noop = (): void => {};

/**
 * Calls a method whose handler returns an `AsyncIterable`, and iterates its items. The call is
 * made when iteration starts. `break` (or `return()`) cancels the producer; a producer error makes
 * the loop throw that error (a `JsonRpcError` with its code); a closed connection makes it throw
 * a `ConnectionClosedError`.
 *
 * @param peer - a client, or a server connection (to pull a stream the client serves)
 * @param method - the streaming method
 * @param params - its params
 * @param options - window, signal, timeout
 * @returns the items, as an async iterable
 * @throws ProtocolError (`PROTOCOL_ERROR`) from the loop when the answer is not a stream
 * @example
 * ```ts
 * for await (const n of streamCall<number>(client, 'count', { to: 10_000 })) {
 *   if (n > 100) break; // cancels the producer
 * }
 * ```
 */
export function streamCall<T = unknown>(
  peer: Peer,
  method: string,
  params?: JsonRpcParams,
  options: StreamCallOptions = {},
): StreamIterable<T> {
  const window = Math.max(1, Math.floor(options.window ?? DEFAULT_STREAM_WINDOW));
  const signal = options.signal;
  const requestOptions = { signal, timeout: options.timeout };
  // A pull may wait as long as the producer takes to yield (an event stream, say): it does not
  // inherit the client's default timeout.
  const pullOptions = { signal, timeout: options.timeout ?? 0 };
  let id: string | undefined;
  let opening: Promise<void> | undefined;
  let buffer: T[] = [];
  let head = 0;
  let done = false;
  let failure: { error: unknown } | undefined;
  let inflight: Promise<void> | undefined;
  let closed = false;

  const cancel = (): Promise<void> => {
    const stream = id;
    if (stream === undefined || done) return Promise.resolve();
    done = true;
    return peer.request(STREAM_CANCEL_METHOD, { stream }).then(noop, noop);
  };

  const onAbort = (): void => {
    failure ??= { error: new AbortError({ method }) };
    void cancel();
  };

  const fetch = (): Promise<void> =>
    peer.request<unknown>(STREAM_NEXT_METHOD, { stream: id!, max: window }, pullOptions).then(
      (chunk) => {
        const { items, done: last } = (chunk ?? {}) as { items?: unknown; done?: unknown };
        if (!Array.isArray(items) || typeof last !== 'boolean') {
          failure ??= { error: new ProtocolError('Malformed stream chunk', chunk, { method }) };
          void cancel();
          return;
        }
        for (const item of items) buffer.push(item as T);
        if (last) done = true;
      },
      (error: unknown) => {
        // -32010 is the end, unless the server says it gave up on an unpulled stream.
        const reason = isJsonRpcError(error)
          ? (error.data as { reason?: unknown } | undefined)?.reason
          : undefined;
        if (isJsonRpcError(error) && error.code === STREAM_ENDED && reason !== 'idle') done = true;
        else failure ??= { error };
      },
    );

  const pump = (): void => {
    if (inflight || done || failure || closed || id === undefined) return;
    if (buffer.length - head >= window) return;
    inflight = fetch().finally(() => {
      inflight = undefined;
    });
  };

  const start = (): Promise<void> =>
    (opening ??= peer.request<unknown>(method, params, requestOptions).then((handle) => {
      const stream = (handle as { stream?: unknown } | null)?.stream;
      if (typeof stream !== 'string') {
        throw new ProtocolError('The answer is not a stream handle', handle, { method });
      }
      id = stream;
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      pump();
    }));

  const finish = (): void => {
    closed = true;
    buffer = [];
    head = 0;
    signal?.removeEventListener('abort', onAbort);
  };

  const iterator: StreamIterable<T> = {
    async next(): Promise<IteratorResult<T, undefined>> {
      if (closed) return { done: true, value: undefined };
      if (id === undefined) {
        try {
          await start();
        } catch (error) {
          finish();
          throw error;
        }
      }
      for (;;) {
        if (closed) return { done: true, value: undefined };
        if (head < buffer.length) {
          const value = buffer[head]!;
          buffer[head++] = undefined as T;
          if (head >= 1024 && head * 2 >= buffer.length) {
            buffer = buffer.slice(head);
            head = 0;
          }
          pump();
          return { done: false, value };
        }
        if (failure) {
          finish();
          // A wire error means the server has ended the stream already.
          if (!isJsonRpcError(failure.error)) void cancel();
          throw failure.error;
        }
        if (done) {
          finish();
          return { done: true, value: undefined };
        }
        pump();
        await inflight;
      }
    },
    async return(): Promise<IteratorResult<T, undefined>> {
      if (!closed) {
        finish();
        await cancel();
      }
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return iterator;
}
