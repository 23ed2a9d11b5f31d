/**
 * Where streamed events are kept for resumption (`Last-Event-ID`): the interface a distributed
 * store implements, and a bounded in-memory default.
 *
 * @module
 */
import { FifoQueue } from '@jsonrpc-kit/core/engine';

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
   * Most events kept per stream; the stream's oldest go first. Each stream has its own bound, so
   * that one session's streams cannot push out another's resumption data.
   *
   * @default 1000 ({@link DEFAULT_EVENT_STORE_MAX_EVENTS})
   */
  readonly maxEvents?: number;
  /**
   * Most bytes kept per stream (counted as the JSON text's length plus 64 per event, so that a
   * flood of tiny events is bounded too); the stream's oldest go first. A stream's newest event is
   * kept whatever its size.
   *
   * @default 4 MiB ({@link DEFAULT_EVENT_STORE_MAX_STREAM_BYTES})
   */
  readonly maxStreamBytes?: number;
  /**
   * Most bytes kept over all streams together, counted as for `maxStreamBytes`. Over it, the
   * oldest events of the stream written to least recently go first (an active stream is the last
   * to lose anything).
   *
   * @default 64 MiB ({@link DEFAULT_EVENT_STORE_MAX_BYTES})
   */
  readonly maxBytes?: number;
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
 * Most events the in-memory event store keeps per stream.
 *
 * @default 1000
 */
export const DEFAULT_EVENT_STORE_MAX_EVENTS: number = 1000;

/**
 * Most bytes the in-memory event store keeps per stream.
 *
 * @default 4194304 (4 MiB)
 */
export const DEFAULT_EVENT_STORE_MAX_STREAM_BYTES: number = 4 * 1024 * 1024;

/**
 * Most bytes the in-memory event store keeps over all streams.
 *
 * @default 67108864 (64 MiB)
 */
export const DEFAULT_EVENT_STORE_MAX_BYTES: number = 64 * 1024 * 1024;

/** Bytes counted for each event besides its text (its id, time and place). */
const EVENT_OVERHEAD = 64;

/**
 * Milliseconds the in-memory event store keeps an event.
 *
 * @default 300000 (5 minutes)
 */
export const DEFAULT_EVENT_STORE_MAX_AGE: number = 300_000;

interface Stored {
  readonly sequence: number;
  readonly message: string;
  readonly at: number;
}

/** One stream's events, in sequence order, and the bytes they count. */
interface StoredStream {
  readonly events: FifoQueue<Stored>;
  bytes: number;
}

const sizeOf = (message: string): number => message.length + EVENT_OVERHEAD;

/**
 * An in-memory {@link EventStore}, bounded per stream (count and bytes), over all streams
 * (bytes) and by age. Event ids are `<streamId>_<sequence>`, the sequence counting over all
 * streams (an id is never given twice). Each stream keeps its events in sequence order, so an
 * event is found by a binary search of its stream and a replay walks only the later events of
 * that one stream; storing an event costs the same however many are kept.
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
  const maxStreamBytes = options.maxStreamBytes ?? DEFAULT_EVENT_STORE_MAX_STREAM_BYTES;
  const maxBytes = options.maxBytes ?? DEFAULT_EVENT_STORE_MAX_BYTES;
  const maxAge = options.maxAge ?? DEFAULT_EVENT_STORE_MAX_AGE;
  for (const [name, value] of [
    ['maxEvents', maxEvents],
    ['maxStreamBytes', maxStreamBytes],
    ['maxBytes', maxBytes],
  ] as const) {
    if (!(value >= 1)) throw new RangeError(`${name} must be >= 1, got ${value}`);
  }
  if (!(maxAge > 0)) throw new RangeError(`maxAge must be > 0, got ${maxAge}`);
  const now = options.now ?? Date.now;
  // The streams, the one written to least recently first (a write moves a stream to the end).
  const streams = new Map<string, StoredStream>();
  let sequence = 0;
  let total = 0;

  /** Drops a stream's oldest event. */
  const dropOldest = (streamId: string, stream: StoredStream): void => {
    const gone = stream.events.shift()!;
    const size = sizeOf(gone.message);
    stream.bytes -= size;
    total -= size;
    if (stream.events.length === 0) streams.delete(streamId);
  };

  /** Drops a stream's events past their age. */
  const expire = (streamId: string, stream: StoredStream, oldest: number): void => {
    for (let first = stream.events.at(0); first !== undefined && first.at < oldest; ) {
      dropOldest(streamId, stream);
      first = stream.events.at(0);
    }
  };

  /**
   * Drops what is past its age in the streams written to least recently, then what is over the
   * total; the newest event of `current` (the stream just written) stays.
   */
  const prune = (current?: StoredStream): void => {
    const oldest = now() - maxAge;
    for (const [streamId, stream] of streams) {
      const last = stream.events.at(stream.events.length - 1)!;
      if (last.at >= oldest && total <= maxBytes) break;
      if (last.at < oldest) {
        total -= stream.bytes;
        streams.delete(streamId);
        continue;
      }
      // Over the total: the least recently written stream gives up its oldest, one at a time.
      const keep = stream === current ? 1 : 0;
      while (total > maxBytes && stream.events.length > keep) dropOldest(streamId, stream);
      if (stream === current) break;
    }
  };

  /** The event kept under this id, if any: its stream and its place there. */
  const find = (
    eventId: string,
  ): { streamId: string; stream: StoredStream; index: number } | undefined => {
    const at = eventId.lastIndexOf('_');
    const digits = eventId.slice(at + 1);
    if (at <= 0 || !/^[1-9]\d*$/.test(digits)) return undefined;
    const n = Number(digits);
    const streamId = eventId.slice(0, at);
    const stream = streams.get(streamId);
    if (stream === undefined) return undefined;
    expire(streamId, stream, now() - maxAge);
    const events = stream.events;
    let low = 0;
    let high = events.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const s = events.at(middle)!.sequence;
      if (s === n) return { streamId, stream, index: middle };
      if (s < n) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  };

  return {
    append(streamId, message) {
      const n = ++sequence;
      let stream = streams.get(streamId);
      if (stream === undefined) stream = { events: new FifoQueue<Stored>(), bytes: 0 };
      else streams.delete(streamId);
      // Written to last: the end of the order.
      streams.set(streamId, stream);
      const size = sizeOf(message);
      stream.events.push({ sequence: n, message, at: now() });
      stream.bytes += size;
      total += size;
      while (
        stream.events.length > 1 &&
        (stream.events.length > maxEvents || stream.bytes > maxStreamBytes)
      ) {
        dropOldest(streamId, stream);
      }
      prune(stream);
      return `${streamId}_${n}`;
    },
    async replayAfter(eventId, send) {
      prune();
      const found = find(eventId);
      if (found === undefined) return undefined;
      const later: Stored[] = [];
      const events = found.stream.events;
      for (let i = found.index + 1; i < events.length; i++) later.push(events.at(i)!);
      for (const event of later) await send(`${found.streamId}_${event.sequence}`, event.message);
      return found.streamId;
    },
  };
}
