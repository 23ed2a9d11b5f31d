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
import type { ReconnectSignal } from './reconnect-signal.js';
import { defaultStreamProfile, pullParams, type StreamProfile } from './stream-profile.js';
import { DEFAULT_STREAM_WINDOW, STREAM_RESUME_PARAM } from './stream-protocol.js';

/**
 * Default milliseconds a resumable stream waits for the transport to reconnect before the loop
 * throws the `ConnectionClosedError` that interrupted it.
 * @default 30000
 */
export const DEFAULT_RESUME_TIMEOUT: number = 30_000;

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
  /**
   * The wire form; it must match the server's.
   * @default defaultStreamProfile
   */
  readonly profile?: StreamProfile;
  /**
   * Resume after a reconnect: when the connection drops during a stream whose handle says
   * `"resumable": true`, wait for this signal's next reconnect and re-open the stream from the
   * items already received (the consumer sees no gap and no repeat). Without it, a drop ends the
   * loop with a `ConnectionClosedError`.
   */
  readonly resume?: ReconnectSignal;
  /**
   * Milliseconds to wait for a reconnect before giving up on resuming.
   * @default DEFAULT_RESUME_TIMEOUT (30000)
   */
  readonly resumeTimeout?: number;
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

function isConnectionClosed(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'CONNECTION_CLOSED';
}

/**
 * Calls a method whose handler returns an `AsyncIterable`, and iterates its items. The call is
 * made when iteration starts. `break` (or `return()`) cancels the producer; a producer error makes
 * the loop throw that error (a `JsonRpcError` with its code); a closed connection makes it throw
 * a `ConnectionClosedError` (unless `resume` is given and the stream is resumable: then the
 * stream is re-opened after the reconnect from the items received). `profile` must match the
 * server's (`kotlinxStreamProfile` to pull a kotlinx-rpc peer's Flow).
 *
 * @param peer - a client, or a server connection (to pull a stream the client serves)
 * @param method - the streaming method
 * @param params - its params
 * @param options - profile, window, signal, timeout, resume
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
  const profile = options.profile ?? defaultStreamProfile;
  const resume = profile.resume ? options.resume : undefined;
  const resumeTimeout = options.resumeTimeout ?? DEFAULT_RESUME_TIMEOUT;
  const signal = options.signal;
  const requestOptions = { signal, timeout: options.timeout };
  // A pull may wait as long as the producer takes to yield (an event stream, say): it does not
  // inherit the client's default timeout.
  const pullOptions = { signal, timeout: options.timeout ?? 0 };
  let id: string | number | undefined;
  /** Items received in all, the cursor of a resume. */
  let received = 0;
  let canResume = false;
  /** Reconnects seen when the stream was (re-)opened. */
  let epoch = 0;
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
    return peer.request(profile.cancel, pullParams(profile, stream)).then(noop, noop);
  };

  const onAbort = (): void => {
    failure ??= { error: new AbortError({ method }) };
    void cancel();
  };

  /** Takes the stream id from the answer of the (re-)opening call. */
  const adopt = (handle: unknown): void => {
    const stream =
      profile.handle === 'id'
        ? handle
        : (handle as Record<string, unknown> | null)?.[profile.idParam];
    if (typeof stream !== 'string' && (profile.ids === 'string' || typeof stream !== 'number')) {
      throw new ProtocolError('The answer is not a stream handle', handle, { method });
    }
    id = stream;
    canResume =
      profile.handle === 'object' && (handle as { resumable?: unknown }).resumable === true;
    epoch = resume?.count ?? 0;
  };

  const reconnected = (): Promise<void> => {
    const wait = new AbortController();
    const timer = setTimeout(() => wait.abort(), resumeTimeout);
    const onAbort = (): void => wait.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    // A client closed for good (by `close()`, or a transport that gave up) never reconnects.
    (peer as { closed?: Promise<void> }).closed?.then(onAbort, onAbort);
    return resume!.after(epoch, wait.signal).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  };

  /** Re-opens a resumable stream after a drop, from the items received; bounded by reconnects. */
  const reopen = async (cause: unknown): Promise<void> => {
    for (;;) {
      try {
        await reconnected();
      } catch {
        failure ??= { error: cause };
        return;
      }
      if (closed || failure) return;
      epoch = resume!.count;
      const from = { from: received, ...(params === undefined ? {} : { params }) };
      try {
        adopt(await peer.request(method, { [STREAM_RESUME_PARAM]: from }, requestOptions));
        return;
      } catch (error) {
        if (!isConnectionClosed(error) || closed || failure) {
          failure ??= { error };
          return;
        }
      }
    }
  };

  const fetch = (): Promise<void> =>
    peer.request<unknown>(profile.next, pullParams(profile, id!, window), pullOptions).then(
      (chunk) => {
        if (!profile.page) {
          buffer.push(chunk as T);
          received++;
          return;
        }
        const { items, done: last } = (chunk ?? {}) as { items?: unknown; done?: unknown };
        if (!Array.isArray(items) || typeof last !== 'boolean') {
          failure ??= { error: new ProtocolError('Malformed stream chunk', chunk, { method }) };
          void cancel();
          return;
        }
        for (const item of items) buffer.push(item as T);
        received += items.length;
        if (last) done = true;
      },
      (error: unknown) => {
        // After a reconnect the old id means nothing to the server (its streams belong to the old
        // connection): whatever it answered, re-open from the items received.
        if (
          canResume &&
          resume !== undefined &&
          !closed &&
          (isConnectionClosed(error) || resume.count > epoch)
        ) {
          return reopen(error);
        }
        // The end code is the end, unless the server says it gave up on an unpulled stream.
        const reason = isJsonRpcError(error)
          ? (error.data as { reason?: unknown } | undefined)?.reason
          : undefined;
        if (isJsonRpcError(error) && error.code === profile.end.code && reason !== 'idle') {
          done = true;
        } else failure ??= { error };
        return undefined;
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
      adopt(handle);
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
