/**
 * One outgoing Server-Sent Events stream: a `ReadableStream` of bytes with event ids from the
 * event store, keep-alive comments when idle, and a bound on what a slow reader leaves queued.
 *
 * @module
 */
import type { EventStore } from './event-store.js';
import { encodeSseEvent, SSE_KEEP_ALIVE } from './sse.js';

const encoder = new TextEncoder();

/** Events queued before `send` makes its caller wait for the reader (backpressure). */
const SOFT_MARK = 64;

/** An open SSE stream. */
export interface SseStream {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  /** The stream's id in the event store. */
  readonly streamId: string;
  /** Whether it is still open. */
  readonly open: boolean;
  /**
   * Sends one message (stored first, when there is a store, so that it can be replayed).
   *
   * @param message - a JSON text
   */
  send(message: string): Promise<void>;
  /** Sends an already stored event (a replay). */
  sendStored(eventId: string, message: string): void;
  /** Ends the stream. */
  end(): void;
}

/** Options of {@link openSseStream}. */
export interface SseStreamOptions {
  readonly streamId: string;
  readonly store: EventStore | undefined;
  /** Milliseconds of silence before a keep-alive comment; 0: none. */
  readonly keepAlive: number;
  /**
   * Events a slow reader may leave queued before the stream is ended (senders that await `send`
   * already wait past 64, so only senders that do not wait reach this).
   */
  readonly maxBufferedEvents: number;
  /** The client went away, or the stream was ended for falling behind. */
  readonly onGone: () => void;
  /** Something to send first (a priming event), already encoded. */
  readonly prelude?: string | undefined;
}

/**
 * Opens an SSE stream. Backpressure policy: past 64 queued events `send` resolves only when the
 * reader takes more (so `ctx.peer.notify` waits for a slow client); when senders that do not wait
 * let more than `maxBufferedEvents` events queue up, the stream is ended (the events stay in the store, so the client can come back
 * with `Last-Event-ID`) rather than buffering without bound.
 *
 * @param options - id, store, keep-alive, buffer bound, and the gone callback
 * @returns the stream
 */
export function openSseStream(options: SseStreamOptions): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let timer: ReturnType<typeof setInterval> | undefined;
  let idle = false;
  // Resolved when the reader pulls again: senders wait for it once the queue is past its mark.
  let drained: { promise: Promise<void>; resolve: () => void } | undefined;
  const release = (): void => {
    const d = drained;
    drained = undefined;
    d?.resolve();
  };
  const stop = (): void => {
    if (!open) return;
    open = false;
    if (timer !== undefined) clearInterval(timer);
    release();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (options.prelude) c.enqueue(encoder.encode(options.prelude));
      },
      pull() {
        release();
      },
      cancel() {
        stop();
        options.onGone();
      },
    },
    { highWaterMark: SOFT_MARK, size: () => 1 },
  );
  const write = (text: string): Promise<void> | undefined => {
    if (!open) return undefined;
    idle = false;
    if ((controller.desiredSize ?? 0) <= SOFT_MARK - options.maxBufferedEvents) {
      // The reader fell too far behind: end the stream instead of buffering without bound.
      stream.end();
      options.onGone();
      return undefined;
    }
    controller.enqueue(encoder.encode(text));
    if ((controller.desiredSize ?? 1) > 0) return undefined;
    // Past the mark: the sender waits until the reader takes more (backpressure).
    if (drained === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      drained = { promise, resolve };
    }
    return drained.promise;
  };
  if (options.keepAlive > 0) {
    timer = setInterval(() => {
      if (idle) void write(SSE_KEEP_ALIVE);
      idle = true;
    }, options.keepAlive);
    (timer as { unref?: () => void }).unref?.();
  }
  const stream: SseStream = {
    body,
    streamId: options.streamId,
    get open() {
      return open;
    },
    async send(message) {
      const id =
        options.store === undefined
          ? undefined
          : await options.store.append(options.streamId, message);
      await write(encodeSseEvent(message, id));
    },
    sendStored(eventId, message) {
      void write(encodeSseEvent(message, eventId));
    },
    end() {
      if (!open) return;
      stop();
      try {
        controller.close();
      } catch {
        // already closed or errored by the reader
      }
    },
  };
  return stream;
}
