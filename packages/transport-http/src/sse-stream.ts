/**
 * One outgoing Server-Sent Events stream: a `ReadableStream` of bytes with event ids from the
 * event store, keep-alive comments when idle, and bounds (events and bytes) on what a slow reader
 * leaves queued: past them its connection is dropped. The keep-alive timer the streams of a
 * handler share is in `sse-keep-alive.ts`.
 *
 * @module
 */
import { deferred, FifoQueue } from '@jsonrpc-kit/core/engine';
import type { EventStore } from './event-store.js';
import { encodeSseEvent, SSE_KEEP_ALIVE } from './sse.js';
import type { KeepAlive } from './sse-keep-alive.js';

export { createKeepAlive } from './sse-keep-alive.js';

const encoder = new TextEncoder();

/** Why a body was errored: its reader left more queued than the stream's bounds. */
const FELL_BEHIND = 'The reader fell behind: event stream dropped';

/** Events queued before `send` makes its caller wait for the reader (backpressure). */
const SOFT_MARK = 64;

/** Each event counts as one against the mark, whatever its size. Shared by every stream. */
const STRATEGY: QueuingStrategy<Uint8Array> = Object.freeze({
  highWaterMark: SOFT_MARK,
  size: () => 1,
});

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
  /**
   * Writes the stream straight to a sink (node:http's response) instead of its `body`: no
   * `ReadableStream` is made for a `direct` stream written this way. What was sent before is
   * written first; the sink closing ends the stream as the reader going away does.
   *
   * @param sink - where the bytes go
   */
  attach(sink: SseSink): void;
}

/** Where a `direct` stream writes: node:http's `ServerResponse` is one. */
export interface SseSink {
  /** Writes a chunk; `false` when the sink's buffer is full (wait for `drain`). */
  write(chunk: Uint8Array): boolean;
  /** Ends the output. */
  end(): void;
  /** Drops the connection at once: what was written and not yet sent is thrown away. */
  destroy(): unknown;
  /** Whether it is already closed. */
  readonly destroyed: boolean;
  /** Calls back on `close` (gone). */
  on(event: 'close', listener: () => void): unknown;
  /** Calls back once on `drain` (room again). */
  once(event: 'drain', listener: () => void): unknown;
}

/** Options of {@link openSseStream}. */
export interface SseStreamOptions<O = unknown> {
  readonly streamId: string;
  readonly store: EventStore | undefined;
  /** The shared keep-alive timer; `undefined`: none. */
  readonly keepAlive: KeepAlive | undefined;
  /**
   * Events a slow reader may leave queued before the stream is ended (senders that await `send`
   * already wait past 64, so only senders that do not wait reach this).
   */
  readonly maxBufferedEvents: number;
  /**
   * Bytes a slow reader may leave queued (beyond what its socket takes) before its connection is
   * dropped. An event is always written when nothing is queued, whatever its size.
   */
  readonly maxBufferedBytes: number;
  /**
   * The client went away, or the stream was dropped for falling behind: called with `owner`, so
   * one function serves every stream.
   */
  readonly onGone: (owner: O) => void;
  /** Given to `onGone`. */
  readonly owner: O;
  /** Something to send first (a priming event), already encoded. */
  readonly prelude?: string | undefined;
  /**
   * The stream will be written to a sink with `attach` (node:http): its `body` is made only if
   * read. Until attached, what is sent waits in a list.
   */
  readonly direct?: boolean | undefined;
}

/** A waiter for the reader to pull again, made only once the queue is past its mark. */
interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

/**
 * The stream: its own underlying source (`start`, `pull`, `cancel` on the prototype), so an open
 * stream costs one object, its `ReadableStream` and controller, and no closure or timer of its own.
 */
class SseStreamImpl implements SseStream {
  readonly streamId: string;
  /** Nothing was written since the last keep-alive tick. */
  idle = false;
  #open = true;
  #body: ReadableStream<Uint8Array> | undefined = undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined = undefined;
  #sink: SseSink | undefined = undefined;
  /** Events written to the sink since it said it was full. */
  #full = 0;
  /**
   * Bytes queued beyond the reader's room: written to the sink since it said it was full, or
   * waiting before a body or sink took them, or in the body's queue.
   */
  #queuedBytes = 0;
  /** The sizes of the chunks in the body's queue, oldest first (only while it holds some). */
  #sizes: FifoQueue<number> | undefined = undefined;
  /** What was sent before the body was made or a sink attached. */
  #pending: Uint8Array[] | undefined = undefined;
  /** It was dropped for falling behind (not ended): nothing of it is to be delivered. */
  #dropped = false;
  #drained: Deferred | undefined = undefined;
  readonly #store: EventStore | undefined;
  readonly #keepAlive: KeepAlive | undefined;
  readonly #maxBuffered: number;
  readonly #maxBytes: number;
  readonly #onGone: (owner: unknown) => void;
  readonly #owner: unknown;

  constructor(options: SseStreamOptions) {
    this.streamId = options.streamId;
    this.#store = options.store;
    this.#keepAlive = options.keepAlive;
    this.#maxBuffered = options.maxBufferedEvents;
    this.#maxBytes = options.maxBufferedBytes;
    this.#onGone = options.onGone;
    this.#owner = options.owner;
    if (options.prelude) {
      const chunk = encoder.encode(options.prelude);
      this.#pending = [chunk];
      this.#queuedBytes = chunk.byteLength;
    }
    if (options.direct !== true) this.#body = new ReadableStream<Uint8Array>(this, STRATEGY);
    this.#keepAlive?.add(this);
  }

  get body(): ReadableStream<Uint8Array> {
    this.#body ??= new ReadableStream<Uint8Array>(this, STRATEGY);
    return this.#body;
  }

  attach(sink: SseSink): void {
    this.#sink = sink;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#queuedBytes = 0;
    if (sink.destroyed) {
      this.#gone();
      return;
    }
    if (this.#dropped) {
      sink.destroy();
      return;
    }
    // `on`, not `once`: 'close' comes once, and `once` would add a wrapper and a bound function.
    sink.on('close', () => this.#gone());
    let room = true;
    let bytes = 0;
    if (pending !== undefined) {
      for (const chunk of pending) {
        room = sink.write(chunk);
        bytes += chunk.byteLength;
      }
    }
    if (!this.#open) sink.end();
    else if (!room) {
      this.#block(sink, pending!.length);
      this.#queuedBytes = bytes;
    } else this.#release();
  }

  get open(): boolean {
    return this.#open;
  }

  /** Underlying source: the stream starts. */
  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#queuedBytes = 0;
    if (this.#dropped) {
      controller.error(new Error(FELL_BEHIND));
      return;
    }
    if (pending !== undefined) for (const chunk of pending) this.#enqueue(controller, chunk);
    if (!this.#open) controller.close();
  }

  /** Underlying source: the reader wants more. */
  pull(): void {
    this.#release();
  }

  /** Underlying source: the reader went away. */
  cancel(): void {
    this.#stop();
    this.#onGone(this.#owner);
  }

  /** A keep-alive tick: a comment if nothing went out since the last one. */
  tick(): void {
    if (this.idle) void this.#write(SSE_KEEP_ALIVE);
    this.idle = true;
  }

  async send(message: string): Promise<void> {
    const store = this.#store;
    const id = store === undefined ? undefined : await store.append(this.streamId, message);
    await this.#write(encodeSseEvent(message, id));
  }

  sendStored(eventId: string, message: string): void {
    void this.#write(encodeSseEvent(message, eventId));
  }

  end(): void {
    if (!this.#open) return;
    this.#stop();
    if (this.#sink !== undefined) this.#sink.end();
    else {
      try {
        this.#controller?.close();
      } catch {
        // already closed or errored by the reader
      }
    }
  }

  /** The sink closed: the client went away (unless the stream had ended). */
  #gone(): void {
    if (this.#open) this.cancel();
  }

  /** The sink is full: senders wait for its `drain`. */
  #block(sink: SseSink, written: number): void {
    this.#full = written;
    sink.once('drain', () => {
      this.#full = 0;
      this.#queuedBytes = 0;
      this.#release();
    });
  }

  #release(): void {
    const d = this.#drained;
    this.#drained = undefined;
    d?.resolve();
  }

  /**
   * The reader fell too far behind: the stream stops and its connection is dropped (destroyed,
   * not ended, so that nothing written stays queued for a reader that does not read). What was
   * stored stays in the event store for a `Last-Event-ID` resumption.
   */
  #drop(): void {
    if (!this.#open) return;
    this.#dropped = true;
    this.#stop();
    this.#pending = undefined;
    this.#sizes = undefined;
    this.#queuedBytes = 0;
    const sink = this.#sink;
    if (sink !== undefined) sink.destroy();
    else if (this.#controller !== undefined) {
      try {
        this.#controller.error(new Error(FELL_BEHIND));
      } catch {
        // already closed or errored by the reader
      }
    }
    this.#onGone(this.#owner);
  }

  /** Puts a chunk in the body's queue, its size counted until the reader takes it. */
  #enqueue(controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array): void {
    controller.enqueue(chunk);
    (this.#sizes ??= new FifoQueue()).push(chunk.byteLength);
    this.#queuedBytes += chunk.byteLength;
  }

  /** Bytes still in the body's queue: the chunks the reader took leave it from the front. */
  #bodyBytes(queued: number): number {
    const sizes = this.#sizes;
    if (sizes === undefined) return 0;
    while (sizes.length > queued) this.#queuedBytes -= sizes.shift()!;
    if (sizes.length === 0) this.#sizes = undefined;
    return this.#queuedBytes;
  }

  #stop(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#keepAlive?.delete(this);
    this.#release();
  }

  #write(text: string): Promise<void> | undefined {
    if (!this.#open) return undefined;
    this.idle = false;
    const controller = this.#controller;
    const sink = this.#sink;
    const queued =
      controller !== undefined
        ? SOFT_MARK - (controller.desiredSize ?? 0)
        : sink !== undefined
          ? this.#full
          : (this.#pending?.length ?? 0);
    const chunk = encoder.encode(text);
    const bytes = controller !== undefined ? this.#bodyBytes(queued) : this.#queuedBytes;
    if (queued >= this.#maxBuffered || (bytes > 0 && bytes + chunk.byteLength > this.#maxBytes)) {
      // The reader fell too far behind: drop it instead of buffering without bound.
      this.#drop();
      return undefined;
    }
    if (controller !== undefined) {
      this.#enqueue(controller, chunk);
      if ((controller.desiredSize ?? 1) > 0) return undefined;
    } else if (sink !== undefined) {
      if (this.#full > 0) {
        sink.write(chunk);
        this.#full++;
        this.#queuedBytes += chunk.byteLength;
      } else if (sink.write(chunk)) return undefined;
      else {
        this.#block(sink, 1);
        this.#queuedBytes = chunk.byteLength;
      }
    } else {
      const pending = (this.#pending ??= []);
      pending.push(chunk);
      this.#queuedBytes += chunk.byteLength;
      if (pending.length < SOFT_MARK) return undefined;
    }
    // Past the mark: the sender waits until the reader takes more (backpressure).
    if (this.#drained === undefined) {
      const { promise, resolve } = deferred();
      this.#drained = { promise, resolve };
    }
    return this.#drained.promise;
  }
}

export type { SseStreamImpl };

/**
 * Opens an SSE stream. Backpressure policy: past 64 queued events `send` resolves only when the
 * reader takes more (so `ctx.peer.notify` waits for a slow client); when senders that do not wait
 * let more than `maxBufferedEvents` events or `maxBufferedBytes` bytes queue up, the stream is
 * dropped: a sink (its socket) is destroyed, a body errored, so nothing written stays queued (the
 * events stay in the store, so the client can come back with `Last-Event-ID`).
 *
 * @param options - id, store, shared keep-alive timer, buffer bounds, and the gone callback
 * @returns the stream
 */
export function openSseStream<O>(options: SseStreamOptions<O>): SseStream {
  return new SseStreamImpl(options as SseStreamOptions);
}
