/**
 * The caller's side of the queue transport: requests go on a Redis stream for a group of workers;
 * answers come back on a reply stream of this caller's own. Its options are in
 * `queue-client-options.ts`.
 *
 * @module
 */
import {
  ConnectionClosedError,
  type SendOptions,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  FifoQueue,
  headIdText,
  scanEnvelope,
  scanHead,
  TurnoverMap,
} from '@jsonrpc-kit/core/engine';
import {
  checkRedisOptions,
  closeError,
  command,
  dropConnection,
  openPair,
  pauseAfterFailure,
  type RedisConnection,
  settlesWithin,
} from './connection.js';
import {
  DEFAULT_MAX_QUEUED_SENDS,
  DEFAULT_QUEUE_FORGET_AFTER,
  QUEUE_CLIENT_OPTION_NAMES,
  QUEUE_RECOUNT_MS,
  type RedisQueueClientTransport,
  type RedisQueueClientTransportOptions,
} from './queue-client-options.js';
import {
  batchExpectsAnswer,
  DEFAULT_MAX_BACKLOG,
  FIELD_BODY,
  FIELD_CORRELATION,
  FIELD_REPLY_TO,
  isBatchText,
  replyKey,
  uniqueId,
} from './queue-keys.js';
import { readStreamReply } from './stream-reply.js';

export { QUEUE_RECOUNT_MS } from './queue-client-options.js';

/** A message held while Redis is unreachable. */
interface HeldSend {
  readonly message: string;
  readonly options: SendOptions | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Creates the caller's side of the queue transport. Each message becomes one entry of the
 * request stream `queue`, taken by one worker of a consumer group
 * ({@link createRedisQueueWorkerTransport}); answers come back on this caller's reply stream.
 *
 * Delivery is at least once: a worker that dies mid-request has the request retried by another,
 * so one request can be answered twice. This transport passes the first answer of each message on
 * and drops later ones (counted in `duplicates`), so a call settles exactly once. An answer that
 * comes after its caller gave up (the call timed out or was aborted) is dropped the same way. A
 * handler with side effects may still run twice: make it idempotent.
 *
 * A call given up on (timed out, aborted) before a worker took it is deleted from the stream, so
 * no worker runs it. While Redis is unreachable, up to `maxQueue` messages wait and go out
 * once it is back (but not those given up on meanwhile); more are refused at once.
 *
 * @param options - where Redis is and the queue's key
 * @returns the transport; give it to `createClient()`
 * @throws TransportError (from `start()`) when Redis cannot be reached; `send()` rejects with
 *   `ConnectionClosedError` after close, and `TransportError` when Redis refuses the entry, when
 *   the queue is full (`maxBacklog` requests not yet done), or when Redis is unreachable and
 *   `maxQueue` messages already wait
 * @example
 * ```ts
 * import { createClient } from '@jsonrpc-kit/client';
 * import { createRedisQueueClientTransport } from '@jsonrpc-kit/redis';
 *
 * const client = createClient(
 *   createRedisQueueClientTransport({ url: 'redis://127.0.0.1:6379', queue: 'calc' }),
 * );
 * console.log(await client.request('add', [1, 2]));
 * await client.close();
 * ```
 */
export function createRedisQueueClientTransport(
  options: RedisQueueClientTransportOptions,
): RedisQueueClientTransport {
  checkRedisOptions('createRedisQueueClientTransport', options, QUEUE_CLIENT_OPTION_NAMES);
  const callerId = uniqueId();
  const queue = options.queue;
  const ownReplyKey = replyKey(queue, callerId);
  const maxLength = options.maxBacklog ?? DEFAULT_MAX_BACKLOG;
  if (!(maxLength > 0)) throw new RangeError(`maxBacklog must be > 0, got ${maxLength}`);
  const blockMs = String(options.blockMs ?? 1000);
  const forgetAfter = options.forgetAfter ?? DEFAULT_QUEUE_FORGET_AFTER;
  if (!(forgetAfter > 0)) throw new RangeError(`forgetAfter must be > 0, got ${forgetAfter}`);
  const maxHeld = options.maxQueue ?? DEFAULT_MAX_QUEUED_SENDS;
  /** Messages held while Redis is unreachable, in order. */
  const held = new FifoQueue<HeldSend>();
  /**
   * Correlation tokens of the messages still waiting for their answer, sent since `since` (a
   * `TurnoverMap`: it gains and loses one per call), and those of the `forgetAfter` before.
   * Older ones are let go of whole: no timer, no walk over the table.
   */
  let outstanding = new TurnoverMap<string, true>();
  let earlier = new TurnoverMap<string, true>();
  let since = Date.now();
  const age = (): void => {
    const now = Date.now();
    if (now - since < forgetAfter) return;
    earlier = now - since < 2 * forgetAfter ? outstanding : new TurnoverMap();
    outstanding = new TurnoverMap();
    since = now;
  };
  const forget = (correlation: string): boolean =>
    outstanding.delete(correlation) || earlier.delete(correlation);
  /**
   * The request stream's length as last counted, when, and how many entries this caller had
   * added by then: the backlog is that count plus what this caller added since.
   */
  let counted = 0;
  let countedAt = Number.NEGATIVE_INFINITY;
  let addedAtCount = 0;
  let added = 0;
  let counting: Promise<void> | undefined;
  const recount = (connection: RedisConnection): Promise<void> => {
    if (counting !== undefined) return counting;
    const addedBefore = added;
    counting = command(connection, ['XLEN', queue]).then(
      (length) => {
        counted = Number(length);
        addedAtCount = addedBefore;
        countedAt = Date.now();
        counting = undefined;
      },
      () => {
        counting = undefined;
      },
    );
    return counting;
  };
  /**
   * Whether the queue is full: at once from the last count while it is recent; a count that is
   * not is taken again first.
   */
  const isFull = (connection: RedisConnection): boolean | Promise<boolean> => {
    const fresh = Date.now() - countedAt < QUEUE_RECOUNT_MS;
    if (!fresh) void recount(connection);
    if (counted + added - addedAtCount < maxLength) return false;
    if (fresh) return true;
    return recount(connection).then(() => counted + added - addedAtCount >= maxLength);
  };
  const queueFull = (): TransportError =>
    new TransportError(
      `Queue "${queue}" is full: ${maxLength} requests wait for a worker; message refused`,
    );
  let nextCorrelation = 0;
  let duplicates = 0;
  let handler: TransportHandler | undefined;
  let commands: RedisConnection | undefined;
  let reader: RedisConnection | undefined;
  let closed = false;
  let closeNotified = false;
  let readLoop: Promise<void> | undefined;

  const notifyClose = (error?: Error): void => {
    if (closeNotified) return;
    closeNotified = true;
    handler?.onClose(error);
  };

  const deliver = (correlation: string | undefined, body: string | undefined): void => {
    if (correlation === undefined || body === undefined) return;
    age();
    if (!forget(correlation)) {
      duplicates++;
      return;
    }
    handler?.onMessage(body);
  };

  const runReads = async (connection: RedisConnection): Promise<void> => {
    let lastId = '0-0';
    let failures = 0;
    while (!closed) {
      try {
        const reply = await connection.sendCommand([
          'XREAD',
          'COUNT',
          '256',
          'BLOCK',
          blockMs,
          'STREAMS',
          ownReplyKey,
          lastId,
        ]);
        failures = 0;
        for (const entry of readStreamReply(reply)) {
          lastId = entry.id;
          deliver(entry.fields[FIELD_CORRELATION], entry.fields[FIELD_BODY]);
        }
      } catch (error) {
        if (closed) return;
        handler?.onError?.(error as Error);
        // The connection reconnects by itself; wait a little before asking again.
        await pauseAfterFailure(failures++);
      }
    }
  };

  const close = async (reason?: unknown): Promise<void> => {
    if (closed) return;
    closed = true;
    for (let next = held.shift(); next !== undefined; next = held.shift()) {
      next.reject(new ConnectionClosedError());
    }
    dropConnection(reader);
    await readLoop;
    if (commands !== undefined) {
      // Its reply stream goes now rather than at its expiry, unless Redis does not answer.
      await settlesWithin(command(commands, ['DEL', ownReplyKey]));
      dropConnection(commands);
    }
    notifyClose(closeError(reason));
  };

  /** Puts one message on the stream, once the queue is known not to be full. */
  const add = (
    connection: RedisConnection,
    message: string,
    sendOptions: SendOptions | undefined,
  ): Promise<void> => {
    const correlation = String(nextCorrelation++);
    // A request as core wrote it is told from its head; any other text is scanned.
    const answered =
      headIdText(message, 'request') !== undefined ||
      (isBatchText(message)
        ? batchExpectsAnswer(message)
        : (scanHead(message) ?? scanEnvelope(message)).kind !== 'notification');
    /** The entry's id once Redis gave it; `null` once its caller gave up. */
    let entryId: string | null | undefined;
    const signal = sendOptions?.signal;
    if (answered) {
      age();
      outstanding.set(correlation, true);
      // Nobody waits any more (the call timed out): a late answer is dropped like a duplicate,
      // a request lost with Redis leaves nothing behind here, and one no worker took yet is
      // deleted from the stream, so that no worker runs it.
      signal?.addEventListener(
        'abort',
        () => {
          forget(correlation);
          if (entryId !== undefined && entryId !== null) withdraw(entryId);
          entryId = null;
        },
        { once: true },
      );
    }
    added++;
    const sent = command(connection, [
      'XADD',
      queue,
      '*',
      FIELD_CORRELATION,
      correlation,
      FIELD_REPLY_TO,
      ownReplyKey,
      FIELD_BODY,
      message,
    ]);
    const refused = (error: unknown): never => {
      forget(correlation);
      throw new TransportError(`Redis refused a message for queue "${queue}"`, {
        cause: error,
      });
    };
    // A chain, not an async function: its own promise and resumption cost more per call.
    if (signal === undefined || !answered) return sent.then(noop, refused);
    return sent.then((id) => {
      if (entryId === null) withdraw(String(id));
      else entryId = String(id);
    }, refused);
  };

  /** Deletes an entry whose caller gave up: a worker that has not taken it never will. */
  const withdraw = (entryId: string): void => {
    if (commands === undefined || closed) return;
    command(commands, ['XDEL', queue, entryId]).catch(noop);
  };

  /** Sends the messages held while Redis was unreachable, in order; drops those given up on. */
  const flushHeld = (): void => {
    const connection = commands;
    while (connection?.isReady && !closed && held.length > 0) {
      const next = held.shift()!;
      if (next.options?.signal?.aborted === true) {
        next.resolve();
        continue;
      }
      add(connection, next.message, next.options).then(next.resolve, next.reject);
    }
  };

  const send = (message: string, sendOptions?: SendOptions): Promise<void> => {
    const connection = commands;
    if (closed || connection === undefined) return Promise.reject(new ConnectionClosedError());
    if (!connection.isReady || held.length > 0) return hold(message, sendOptions);
    const full = isFull(connection);
    if (full === false) return add(connection, message, sendOptions);
    if (full === true) return Promise.reject(queueFull());
    return full.then((isNowFull) =>
      isNowFull ? Promise.reject(queueFull()) : send(message, sendOptions),
    );
  };

  /** Holds a message while Redis is unreachable, up to `maxQueue`. */
  const hold = (message: string, sendOptions: SendOptions | undefined): Promise<void> => {
    if (held.length >= maxHeld) {
      // Full: first let go of the messages whose caller gave up meanwhile.
      const kept: HeldSend[] = [];
      for (let next = held.shift(); next !== undefined; next = held.shift()) {
        if (next.options?.signal?.aborted === true) next.resolve();
        else kept.push(next);
      }
      for (const next of kept) held.push(next);
    }
    if (held.length >= maxHeld) {
      return Promise.reject(
        new TransportError(
          `Redis is unreachable and ${maxHeld} messages already wait; message for queue "${queue}" refused`,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      held.push({ message, options: sendOptions, resolve, reject });
    });
  };

  return {
    callerId,
    get duplicates() {
      return duplicates;
    },
    async start(h) {
      if (handler !== undefined) throw new Error('Transport already started');
      handler = h;
      try {
        // Commands are refused while Redis is unreachable (no offline queue without a bound):
        // this transport holds what waits, bounded, and drops what its caller gave up on.
        ({ commands, reader } = await openPair(options, { disableOfflineQueue: true }));
      } catch (error) {
        throw new TransportError(`Cannot reach Redis for queue "${queue}"`, { cause: error });
      }
      if (closed) {
        dropConnection(commands);
        dropConnection(reader);
        return;
      }
      commands.on('ready', flushHeld);
      readLoop = runReads(reader);
    },
    send,
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisQueueClientTransport;
}

function noop(): void {}
