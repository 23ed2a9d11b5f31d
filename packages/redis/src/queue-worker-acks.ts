/**
 * A queue worker's acknowledgements: the requests done with in one turn are acknowledged and
 * deleted from the stream together, one `XACK` and one `XDEL` when the turn's code is done.
 *
 * @module
 */
import type { RedisConnection } from './connection.js';

/** One worker's acknowledgements. Internal. */
export interface Acknowledger {
  /**
   * Acknowledges a request with the turn's others.
   *
   * @param id - its entry id
   */
  add(id: string): void;
  /** Sends the turn's acknowledgement now. */
  flush(): void;
  /** The last acknowledgement sent, for `close()` to wait for. */
  readonly last: Promise<unknown> | undefined;
}

/**
 * Creates the acknowledgements of a worker.
 *
 * @param queue - the request stream
 * @param group - the consumer group
 * @param connection - the worker's command connection now (`undefined` while it has none)
 * @param report - reports a failed acknowledgement
 * @returns the acknowledgements
 */
export function createAcknowledger(
  queue: string,
  group: string,
  connection: () => RedisConnection | undefined,
  report: (error: Error) => void,
): Acknowledger {
  /** Entries to acknowledge: one `XACK` for all of a turn's, sent when the turn's code is done. */
  let toAcknowledge: string[] = [];
  /** The last `XACK` sent, for `close()` to wait for. */
  let acknowledged: Promise<unknown> | undefined;

  const acknowledgeAll = (): void => {
    const ids = toAcknowledge;
    toAcknowledge = [];
    const commands = connection();
    if (ids.length > 0 && commands !== undefined) {
      // Done with: acknowledged, and deleted from the stream, which so holds only the requests
      // not yet done (what callers count against `maxBacklog`; nothing is trimmed).
      const acked = commands.sendCommand(['XACK', queue, group, ...ids]);
      const deleted = commands.sendCommand(['XDEL', queue, ...ids]);
      acknowledged = Promise.all([acked, deleted]).catch(report);
    }
  };

  return {
    add(id) {
      if (toAcknowledge.push(id) === 1) queueMicrotask(acknowledgeAll);
    },
    flush: acknowledgeAll,
    get last() {
      return acknowledged;
    },
  };
}
