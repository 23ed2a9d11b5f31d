/**
 * The keep-alive of a handler's event streams: one timer for all of them, a comment on each
 * stream that stayed silent for a tick.
 *
 * @module
 */

/** A stream the keep-alive watches. */
export interface KeepAliveStream {
  /** A tick: a comment if nothing went out since the last one. */
  tick(): void;
}

/**
 * One timer for the keep-alive comments of every open stream of a handler (instead of one timer
 * per stream): each tick sends a comment on the streams that stayed silent since the one before,
 * so a silent stream gets one after one to two intervals. The timer runs only while a stream is
 * open.
 */
export interface KeepAlive {
  /** The streams it watches (for tests: what is open). */
  readonly size: number;
  /** Watches a stream until it ends. */
  add(stream: KeepAliveStream): void;
  /** Stops watching a stream. */
  delete(stream: KeepAliveStream): void;
}

/**
 * The shared keep-alive timer of a handler.
 *
 * @param interval - milliseconds between ticks; 0: none
 * @returns the timer, or `undefined` for none
 */
export function createKeepAlive(interval: number): KeepAlive | undefined {
  if (!(interval > 0)) return undefined;
  const streams = new Set<KeepAliveStream>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const tick = (): void => {
    for (const stream of streams) stream.tick();
  };
  return {
    get size() {
      return streams.size;
    },
    add(stream) {
      streams.add(stream);
      if (timer !== undefined) return;
      timer = setInterval(tick, interval);
      (timer as { unref?: () => void }).unref?.();
    },
    delete(stream) {
      if (!streams.delete(stream) || streams.size > 0 || timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
    },
  };
}
