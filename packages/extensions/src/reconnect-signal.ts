/**
 * A counter of transport reconnects that streams (and anything else) can wait on.
 *
 * @module
 */

/** Counts a transport's reconnects; `streamCall`'s `resume` waits on it. */
export interface ReconnectSignal {
  /** Reconnects so far. */
  readonly count: number;
  /** Call after each reconnect: pass it as the transport's `onReconnect` option. */
  readonly onReconnect: () => void;
  /**
   * Waits until more than `seen` reconnects have happened (at once if that is already so).
   *
   * @param seen - the count already seen
   * @param signal - stops waiting: the promise rejects with the signal's reason
   * @returns resolves after the next reconnect
   */
  after(seen: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Creates a {@link ReconnectSignal}. Hand its `onReconnect` to a reconnecting transport and the
 * signal itself to `streamCall(..., { resume })`.
 *
 * @returns the signal
 * @example
 * ```ts
 * const reconnects = createReconnectSignal();
 * const transport = createWebSocketTransport({ url, onReconnect: reconnects.onReconnect });
 * const client = createClient(transport);
 * for await (const n of streamCall(client, 'count', [1000], { resume: reconnects })) console.log(n);
 * ```
 */
export function createReconnectSignal(): ReconnectSignal {
  let count = 0;
  const waiters = new Set<() => void>();
  return {
    get count() {
      return count;
    },
    onReconnect: () => {
      count++;
      for (const wake of [...waiters]) wake();
    },
    after(seen, signal) {
      if (count > seen) return Promise.resolve();
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          waiters.delete(wake);
          reject(signal?.reason);
        };
        const wake = (): void => {
          if (count <= seen) return;
          waiters.delete(wake);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        waiters.add(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
