/**
 * The client transport's offline queue: the sends that wait while no connection is open (always
 * before the first one opens; after, unless `maxQueue` is `false`), bounded by `maxQueue`, written
 * once a connection opens and refused when the transport closes.
 *
 * @module
 */
import { ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';

interface Queued {
  readonly message: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** The sends waiting for a connection. Internal. */
export interface OfflineQueue {
  /**
   * Holds a send until a connection opens, or refuses it at once.
   *
   * @param message - the message
   * @param everOpened - whether a connection has opened before (sends before the first always wait)
   * @returns what `send()` returns: settled once the message is written, or refused
   */
  add(message: string, everOpened: boolean): Promise<void>;
  /**
   * Writes every waiting send, in order, and settles each.
   *
   * @param write - writes one message to the open socket (throws when it cannot)
   */
  flush(write: (message: string) => void): void;
  /** Refuses every waiting send: the transport closed. */
  rejectAll(): void;
}

/**
 * Creates an offline queue.
 *
 * @param maxQueue - the most sends it holds
 * @param enabled - whether sends wait once a connection has opened (`maxQueue` is not `false`)
 * @returns the queue
 */
export function createOfflineQueue(maxQueue: number, enabled: boolean): OfflineQueue {
  let queue: Queued[] = [];
  return {
    add(message, everOpened) {
      if (everOpened && !enabled) {
        return Promise.reject(new ConnectionClosedError('WebSocket is not open'));
      }
      if (queue.length >= maxQueue) {
        return Promise.reject(
          new ConnectionClosedError(
            `WebSocket is not open and the send queue is full (${maxQueue})`,
          ),
        );
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ message, resolve, reject });
      });
    },
    flush(write) {
      const pending = queue;
      queue = [];
      for (const item of pending) {
        try {
          write(item.message);
          item.resolve();
        } catch (error) {
          item.reject(new TransportError('Send failed', { cause: error }));
        }
      }
    },
    rejectAll() {
      const pending = queue;
      queue = [];
      for (const item of pending) {
        item.reject(new ConnectionClosedError('Connection closed before the message was sent'));
      }
    },
  };
}
