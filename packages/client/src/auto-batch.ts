/**
 * The auto-batch queue: calls and notifications made in the same tick (or within `wait` ms) go
 * out as one batch of at most `maxSize` messages; a lone one goes out as a single message. The
 * session's held batch (`session.holdBatch()`) takes the ids, registers the calls and keeps the
 * batch's record; this decides when it goes.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcParams } from '@jsonrpc-kit/core';
import type { BatchCallOptions, HeldBatch, Session } from '@jsonrpc-kit/core/engine';

/** The queue. Internal. */
export interface AutoBatchQueue {
  /**
   * Queues one request; a full queue is sent at once.
   *
   * @param method - its method
   * @param params - its params
   * @param options - its signal and timeout
   * @param id - its id
   * @returns its result
   */
  request(
    method: string,
    params: JsonRpcParams | undefined,
    options: BatchCallOptions,
    id: JsonRpcId,
  ): Promise<unknown>;
  /**
   * Queues a notification.
   *
   * @returns resolves once the batch holding it was sent
   */
  notify(method: string, params: JsonRpcParams | undefined): Promise<void>;
  /** Sends what the queue holds now. */
  flush(): void;
  /**
   * Drops the queue (the client closed): its notifications reject with `error`.
   *
   * @param error - the rejection
   */
  drop(error: Error): void;
}

/**
 * Creates the auto-batch queue of a client.
 *
 * @param session - the client's session
 * @param wait - milliseconds to collect calls (`0`: the same tick)
 * @param maxSize - most messages in one batch
 * @returns the queue
 */
export function createAutoBatchQueue(
  session: Session,
  wait: number,
  maxSize: number,
): AutoBatchQueue {
  let queue: HeldBatch | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = (): void => {
    const batch = queue;
    if (batch === undefined) return;
    queue = undefined;
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    batch.send();
  };

  /**
   * After a member was offered to the batch being filled: its send is scheduled with its first
   * member, and a full batch goes at once. A member refused at once (closed, unwritable, aborted)
   * schedules nothing.
   */
  const added = (batch: HeldBatch, before: number): void => {
    const size = batch.size;
    if (size === before) return;
    if (before === 0) {
      if (wait > 0) timer = setTimeout(flush, wait);
      else {
        queueMicrotask(() => {
          if (queue === batch) flush();
        });
      }
    }
    if (size >= maxSize) flush();
  };

  return {
    request(method, params, options, id) {
      const batch = (queue ??= session.holdBatch());
      const before = batch.size;
      const promise = batch.request(method, params, options, id);
      added(batch, before);
      return promise;
    },
    notify(method, params) {
      const batch = (queue ??= session.holdBatch());
      const before = batch.size;
      const promise = batch.notify(method, params);
      added(batch, before);
      return promise;
    },
    flush,
    drop(error) {
      const batch = queue;
      queue = undefined;
      if (timer !== undefined) clearTimeout(timer);
      batch?.drop(error);
    },
  };
}
