/**
 * Where streamed events are kept for resumption (`Last-Event-ID`): the interface a distributed
 * store implements, and a bounded in-memory default.
 *
 * @module
 */
import { FifoQueue } from '@jsonrpc-kit/core';

/**
 * Keeps the events of streams so that a client reconnecting with `Last-Event-ID` gets what it
 * missed. Event ids must be unique across streams and name their stream (the handler replays the
 * stream an id belongs to).
 */
export interface EventStore {
  /**
   * Stores one message sent on a stream.
   *
   * @param streamId - the stream it was sent on
   * @param message - the JSON text sent
   * @returns the event id to send with it
   */
  append(streamId: string, message: string): string | Promise<string>;
  /**
   * Replays, in order, the events of the stream that `eventId` belongs to that came after it.
   *
   * @param eventId - the last event the client saw
   * @param send - called with each later event
   * @returns the stream id, or `undefined` when the event is unknown (expired or never stored)
   */
  replayAfter(
    eventId: string,
    send: (eventId: string, message: string) => void | Promise<void>,
  ): Promise<string | undefined>;
}

/** Options of {@link createMemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /**
   * Most events kept (over all streams); the oldest go first.
   *
   * @default 1000 ({@link DEFAULT_EVENT_STORE_MAX_EVENTS})
   */
  readonly maxEvents?: number;
  /**
   * Milliseconds an event is kept.
   *
   * @default 300000 ({@link DEFAULT_EVENT_STORE_MAX_AGE})
   */
  readonly maxAge?: number;
  /** The clock, for tests. @default Date.now */
  readonly now?: () => number;
}

/**
 * Most events the in-memory event store keeps.
 *
 * @default 1000
 */
export const DEFAULT_EVENT_STORE_MAX_EVENTS: number = 1000;

/**
 * Milliseconds the in-memory event store keeps an event.
 *
 * @default 300000 (5 minutes)
 */
export const DEFAULT_EVENT_STORE_MAX_AGE: number = 300_000;

interface Stored {
  readonly id: string;
  readonly stream: string;
  readonly message: string;
  readonly at: number;
}

/**
 * An in-memory {@link EventStore}, bounded by count and by age. Event ids are
 * `<streamId>_<sequence>`; the events wait in sequence order in one queue, so an event is found
 * from its id's sequence number, the oldest go first, and a replay walks only the later events:
 * storing an event costs the same however many are kept.
 *
 * @param options - bounds
 * @returns the store
 * @throws RangeError when a bound is not a positive number
 * @example
 * ```ts
 * const store = createMemoryEventStore({ maxEvents: 500, maxAge: 60_000 });
 * const id = await store.append('s1', '{"jsonrpc":"2.0","method":"tick"}');
 * ```
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): EventStore {
  const maxEvents = options.maxEvents ?? DEFAULT_EVENT_STORE_MAX_EVENTS;
  const maxAge = options.maxAge ?? DEFAULT_EVENT_STORE_MAX_AGE;
  if (!(maxEvents >= 1)) throw new RangeError(`maxEvents must be >= 1, got ${maxEvents}`);
  if (!(maxAge > 0)) throw new RangeError(`maxAge must be > 0, got ${maxAge}`);
  const now = options.now ?? Date.now;
  // The events kept, in sequence order: the last one has the sequence number `sequence`.
  const queue = new FifoQueue<Stored>();
  let sequence = 0;

  const prune = (): void => {
    const oldest = now() - maxAge;
    for (let first = queue.at(0); first !== undefined; first = queue.at(0)) {
      if (queue.length <= maxEvents && first.at >= oldest) break;
      queue.shift();
    }
  };

  /** The event kept under this id, if any, and its place in the queue. */
  const find = (eventId: string): { event: Stored; index: number } | undefined => {
    const at = eventId.lastIndexOf('_');
    const n = Number(eventId.slice(at + 1));
    if (at === -1 || !Number.isInteger(n)) return undefined;
    const index = queue.length - 1 - (sequence - n);
    const event = queue.at(index);
    return event !== undefined && event.id === eventId ? { event, index } : undefined;
  };

  return {
    append(streamId, message) {
      const id = `${streamId}_${++sequence}`;
      queue.push({ id, stream: streamId, message, at: now() });
      prune();
      return id;
    },
    async replayAfter(eventId, send) {
      prune();
      const found = find(eventId);
      if (found === undefined) return undefined;
      const stream = found.event.stream;
      const later: Stored[] = [];
      for (let i = found.index + 1; i < queue.length; i++) {
        const event = queue.at(i)!;
        if (event.stream === stream) later.push(event);
      }
      for (const event of later) await send(event.id, event.message);
      return stream;
    },
  };
}
