/**
 * A Redis Streams store of streamed events, so that a client resuming a stream with
 * `Last-Event-ID` gets the events it missed whichever process it reaches.
 *
 * @module
 */
import { asyncDisposeSymbol, type OptionNames } from '@jsonrpc-kit/core/engine';
import {
  checkRedisOptions,
  closeOnce,
  openConnection,
  type RedisConnectionOptions,
} from './connection.js';
import { readEntries } from './stream-reply.js';

/** Most events kept per stream. @default 1000 */
export const DEFAULT_REDIS_EVENT_STORE_MAX_EVENTS = 1000;

/** Milliseconds an event is kept. @default 300000 (5 minutes) */
export const DEFAULT_REDIS_EVENT_STORE_MAX_AGE = 300_000;

/** Options of {@link createRedisEventStore}. */
export interface RedisEventStoreOptions extends RedisConnectionOptions {
  /**
   * Prefix of the Redis key of each stream (`<keyPrefix><streamId>`).
   *
   * @default "jsonrpc-kit:events:"
   */
  readonly keyPrefix?: string | undefined;
  /**
   * Most events kept per stream (`XADD … MAXLEN ~`: Redis may keep a few more); the oldest go
   * first.
   *
   * @default {@link DEFAULT_REDIS_EVENT_STORE_MAX_EVENTS}
   */
  readonly maxEvents?: number | undefined;
  /**
   * Milliseconds an event is kept: older events are trimmed, never replayed, and a stream with
   * no event for this long is deleted.
   *
   * @default {@link DEFAULT_REDIS_EVENT_STORE_MAX_AGE}
   */
  readonly maxAge?: number | undefined;
}

/** The names of {@link RedisEventStoreOptions} beside the connection's. */
const EVENT_STORE_OPTION_NAMES: OptionNames<
  Omit<RedisEventStoreOptions, keyof RedisConnectionOptions>
> = {
  keyPrefix: true,
  maxEvents: true,
  maxAge: true,
};

/**
 * An event store on Redis Streams; it has the shape of the streaming-HTTP transport's
 * `EventStore`, so it can be given wherever one is asked for.
 */
export interface RedisEventStore {
  /**
   * Stores one message sent on a stream.
   *
   * @param streamId - the stream it was sent on
   * @param message - the JSON text sent
   * @returns the event id to send with it: `<streamId>_<Redis entry id>`
   * @throws Error when Redis refuses the entry
   */
  append(streamId: string, message: string): Promise<string>;
  /**
   * Replays, in order, the events of the stream that `eventId` belongs to that came after it.
   *
   * @param eventId - the last event the client saw
   * @param send - called with each later event
   * @returns the stream id, or `undefined` when the event is unknown (expired, trimmed, or never
   *   stored)
   */
  replayAfter(
    eventId: string,
    send: (eventId: string, message: string) => void | Promise<void>,
  ): Promise<string | undefined>;
  /**
   * Closes the connection. Idempotent.
   *
   * @returns resolves when closed
   */
  close(): Promise<void>;
  /** Closes the store (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The time part of a Redis entry id (`<ms>-<seq>`). */
function entryTime(entryId: string): number {
  return Number(entryId.slice(0, entryId.indexOf('-')));
}

/**
 * Creates an event store on Redis Streams: one stream per event stream, bounded by count and by
 * age. Several processes given the same Redis share it: an event stored by one is replayed by
 * another.
 *
 * @param options - where Redis is, the key prefix and the bounds
 * @returns the store, connected
 * @throws RangeError when a bound is not a positive number; Error when Redis cannot be reached
 * @example
 * ```ts
 * import { createRedisEventStore } from '@jsonrpc-kit/redis';
 *
 * const store = await createRedisEventStore({ url: 'redis://127.0.0.1:6379', maxAge: 60_000 });
 * const id = await store.append('s1', '{"jsonrpc":"2.0","method":"tick"}');
 * await store.replayAfter(id, (eventId, message) => console.log(eventId, message));
 * await store.close();
 * ```
 */
export async function createRedisEventStore(
  options: RedisEventStoreOptions = {},
): Promise<RedisEventStore> {
  checkRedisOptions('createRedisEventStore', options, EVENT_STORE_OPTION_NAMES);
  const prefix = options.keyPrefix ?? 'jsonrpc-kit:events:';
  const maxEvents = options.maxEvents ?? DEFAULT_REDIS_EVENT_STORE_MAX_EVENTS;
  const maxAge = options.maxAge ?? DEFAULT_REDIS_EVENT_STORE_MAX_AGE;
  if (!(maxEvents >= 1)) throw new RangeError(`maxEvents must be >= 1, got ${maxEvents}`);
  if (!(maxAge > 0)) throw new RangeError(`maxAge must be > 0, got ${maxAge}`);
  const connection = await openConnection(options);
  const close = closeOnce(connection);

  return {
    async append(streamId, message) {
      const key = prefix + streamId;
      // One round trip: the entry, the age trim and the key's expiry go out together.
      const [entryId] = await Promise.all([
        connection.sendCommand(['XADD', key, 'MAXLEN', '~', String(maxEvents), '*', 'm', message]),
        connection.sendCommand(['XTRIM', key, 'MINID', '~', String(Date.now() - maxAge)]),
        connection.sendCommand(['PEXPIRE', key, String(maxAge)]),
      ]);
      return `${streamId}_${String(entryId)}`;
    },
    async replayAfter(eventId, send) {
      const split = eventId.lastIndexOf('_');
      if (split <= 0) return undefined;
      const streamId = eventId.slice(0, split);
      const entryId = eventId.slice(split + 1);
      const oldest = Date.now() - maxAge;
      if (!/^\d+-\d+$/.test(entryId) || entryTime(entryId) < oldest) return undefined;
      const key = prefix + streamId;
      const [seen, later] = await Promise.all([
        connection.sendCommand(['XRANGE', key, entryId, entryId]),
        connection.sendCommand(['XRANGE', key, `(${entryId}`, '+']),
      ]);
      if (readEntries(seen).length === 0) return undefined;
      for (const entry of readEntries(later)) {
        if (entryTime(entry.id) < oldest) continue;
        await send(`${streamId}_${entry.id}`, entry.fields.m ?? '');
      }
      return streamId;
    },
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisEventStore;
}
