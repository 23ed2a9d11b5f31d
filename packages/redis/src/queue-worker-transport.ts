/**
 * The worker's side of the queue transport: one member of a Redis consumer group, taking requests
 * off the stream, handing them to its server, and routing each answer back to its caller. Its
 * options are in `queue-worker-options.ts`, the requests it holds in `queue-worker-held.ts`, their
 * acknowledgement in `queue-worker-acks.ts`, and the commands that answer, park a request given up
 * on and count deliveries in `queue-worker-commands.ts`.
 *
 * @module
 */
import { ConnectionClosedError, TransportError, type TransportHandler } from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  headIdText,
  SENT,
  scanEnvelope,
  scanHead,
  stringifyId,
} from '@jsonrpc-kit/core/engine';
import {
  CLOSE_WAIT_MS,
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
  batchExpectsAnswer,
  DEFAULT_REPLY_TTL_SECONDS,
  deadLetterKey,
  FIELD_BODY,
  FIELD_CORRELATION,
  FIELD_REPLY_TO,
  isBatchText,
  uniqueId,
} from './queue-keys.js';
import { createAcknowledger } from './queue-worker-acks.js';
import {
  abandonedAnswer,
  deadLetterEntry,
  deliveriesOf,
  replyEntry,
} from './queue-worker-commands.js';
import { HeldRequests, type Taken } from './queue-worker-held.js';
import {
  DEFAULT_MAX_DELIVERIES,
  DEFAULT_VISIBILITY_TIMEOUT,
  DEFAULT_WORKER_CONCURRENCY,
  QUEUE_WORKER_OPTION_NAMES,
  type RedisQueueWorkerTransport,
  type RedisQueueWorkerTransportOptions,
} from './queue-worker-options.js';
import { readEntries, readStreamReply, type StreamEntry } from './stream-reply.js';

/**
 * Creates one worker's side of the queue transport: a member of the consumer group `group` on
 * the request stream `queue`. Give it to `server.connect()`; run as many workers, in as many
 * processes, as the load needs.
 *
 * - A request is acknowledged (`XACK`) only after its answer is on the caller's reply stream. A
 *   worker that dies before that leaves the request pending; after `visibilityTimeout` another
 *   worker takes it over and answers it. A caller may so get a second answer, which its
 *   transport drops (see {@link createRedisQueueClientTransport}).
 * - A request done with is deleted from the stream (`XDEL`) with its acknowledgement: the stream
 *   holds only the requests not yet done, which callers count against their `maxBacklog`.
 *   One consumer group per queue.
 * - A request handed out more than `maxDeliveries` times (every worker that took it stopped
 *   before answering) is not run again: its caller gets an error, and it is acknowledged and
 *   copied to the dead-letter stream ({@link deadLetterKey}).
 * - Notifications are acknowledged as soon as they are handed to the server: at most once.
 * - Two requests from different callers with the same id are served one after the other, never
 *   at once, so that each answer finds its caller; batches likewise one at a time.
 * - Messages the server sends on its own (notifications, requests to the caller) cannot be routed
 *   in a queue: they are dropped and reported to `onError`.
 *
 * @param options - where Redis is, the queue, the group and the timeouts
 * @returns the transport
 * @throws TransportError (from `start()`) when Redis cannot be reached or the group cannot be
 *   created
 * @example
 * ```ts
 * import { createServer } from '@jsonrpc-kit/server';
 * import { createRedisQueueWorkerTransport } from '@jsonrpc-kit/redis';
 *
 * const server = createServer();
 * server.method('add', ([a, b]: [number, number]) => a + b);
 * server.connect(createRedisQueueWorkerTransport({ url: 'redis://127.0.0.1:6379', queue: 'calc' }));
 * ```
 */
export function createRedisQueueWorkerTransport(
  options: RedisQueueWorkerTransportOptions,
): RedisQueueWorkerTransport {
  checkRedisOptions('createRedisQueueWorkerTransport', options, QUEUE_WORKER_OPTION_NAMES);
  const queue = options.queue;
  const group = options.group ?? 'workers';
  const consumer = options.consumer ?? uniqueId();
  const visibility = options.visibilityTimeout ?? DEFAULT_VISIBILITY_TIMEOUT;
  const concurrency = options.concurrency ?? DEFAULT_WORKER_CONCURRENCY;
  const blockMs = String(options.blockMs ?? 1000);
  const replyTtl = String(options.replyTtlSeconds ?? DEFAULT_REPLY_TTL_SECONDS);
  const maxDeliveries = options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES;
  if (!(Number.isInteger(maxDeliveries) && maxDeliveries >= 1)) {
    throw new RangeError(`maxDeliveries must be an integer >= 1, got ${maxDeliveries}`);
  }
  const deadLetters = deadLetterKey(queue);
  let deadLettered = 0;
  let handler: TransportHandler | undefined;
  let commands: RedisConnection | undefined;
  let reader: RedisConnection | undefined;
  let closed = false;
  let closeNotified = false;
  let readLoop: Promise<void> | undefined;
  let renewTimer: ReturnType<typeof setInterval> | undefined;
  let claimed = 0;
  const requests = new HeldRequests((text) => handler?.onMessage(text));
  const held = requests.held;
  let wakeReader: (() => void) | undefined;

  const report = (error: Error): void => handler?.onError?.(error);

  const acknowledgements = createAcknowledger(queue, group, () => commands, report);
  const acknowledge = acknowledgements.add;
  /** Reply streams whose expiry was renewed in this turn, right after their first answer. */
  const renewed = new Set<string>();
  /** Answers on their way to Redis, and what `close()` waits on for them. */
  let answering = 0;
  let answersDone: (() => void) | undefined;

  /** Renews a reply stream's expiry once a turn, sent right behind the turn's first answer to it. */
  const renewExpiry = (connection: RedisConnection, to: string): void => {
    if (renewed.has(to)) return;
    if (renewed.size === 0) queueMicrotask(() => renewed.clear());
    renewed.add(to);
    connection.sendCommand(['EXPIRE', to, replyTtl]).catch(report);
  };

  const take = (entry: StreamEntry): void => {
    if (held.has(entry.id) || closed) return;
    const body = entry.fields[FIELD_BODY];
    if (body === undefined) {
      acknowledge(entry.id);
      return;
    }
    if (isBatchText(body)) {
      if (!batchExpectsAnswer(body)) {
        handler?.onMessage(body);
        acknowledge(entry.id);
        return;
      }
      requests.hold(entry, undefined);
      return;
    }
    // A caller's request as core wrote it is read from its head; any other text is scanned.
    let key = headIdText(body, 'request');
    if (key === undefined) {
      const envelope = scanHead(body) ?? scanEnvelope(body);
      if (envelope.kind === 'notification' || envelope.kind === 'response') {
        if (envelope.kind === 'notification') handler?.onMessage(body);
        else report(new TransportError(`A response was put on queue "${queue}"; dropped`));
        acknowledge(entry.id);
        return;
      }
      key = stringifyId(envelope.id, envelope.rawId);
    }
    requests.hold(entry, key);
  };

  /**
   * Ends this worker's hold on a request and serves the next one waiting for its id.
   *
   * @param done - whether it is done with (acknowledged with the turn's others); `false` to
   *   leave it pending in Redis for another worker to retry
   */
  const release = (taken: Taken, done: boolean): void => {
    if (done) acknowledge(taken.entry.id);
    requests.release(taken);
    wakeReader?.();
  };

  const runReads = async (connection: RedisConnection): Promise<void> => {
    let failures = 0;
    while (!closed) {
      if (held.size >= concurrency) {
        await new Promise<void>((resolve) => {
          wakeReader = resolve;
          setTimeout(resolve, Number(blockMs));
        });
        wakeReader = undefined;
        continue;
      }
      try {
        const reply = await connection.sendCommand([
          'XREADGROUP',
          'GROUP',
          group,
          consumer,
          'COUNT',
          String(concurrency - held.size),
          'BLOCK',
          blockMs,
          'STREAMS',
          queue,
          '>',
        ]);
        failures = 0;
        for (const entry of readStreamReply(reply)) take(entry);
        // One turn of the event loop before reading again: the turn's answers go out, and the
        // next read finds the requests that came meanwhile instead of blocking for the first one
        // (a blocking read returns as soon as one is there). About a third fewer reads under load.
        await new Promise((resolve) => setImmediate(resolve));
      } catch (error) {
        if (closed) return;
        report(error as Error);
        if (String((error as Error).message).startsWith('NOGROUP'))
          await createGroup().catch(report);
        await pauseAfterFailure(failures++);
      }
    }
  };

  /** Renews this worker's requests, then takes over those of workers that went silent. */
  const renewAndClaim = async (): Promise<void> => {
    const connection = commands;
    if (connection === undefined || closed) return;
    if (held.size > 0) {
      await connection.sendCommand([
        'XCLAIM',
        queue,
        group,
        consumer,
        '0',
        ...held.keys(),
        'JUSTID',
      ]);
    }
    if (held.size >= concurrency) return;
    const reply = await connection.sendCommand([
      'XAUTOCLAIM',
      queue,
      group,
      consumer,
      String(visibility),
      '0-0',
      'COUNT',
      String(concurrency - held.size),
    ]);
    const entries = Array.isArray(reply) ? readEntries(reply[1]) : [];
    if (entries.length === 0) return;
    const deliveries = await deliveriesOf(connection, queue, group, consumer, entries, held.size);
    for (const entry of entries) {
      if (held.has(entry.id) || closed) continue;
      const count = deliveries.get(entry.id) ?? 0;
      if (count > maxDeliveries) {
        void giveUp(connection, entry, count).catch(report);
        continue;
      }
      claimed++;
      take(entry);
    }
  };

  /**
   * A request handed out more than `maxDeliveries` times: parked on the dead-letter stream, its
   * caller answered with an error, then acknowledged. Should a step fail, it stays pending and is
   * given up on again at its next takeover.
   */
  const giveUp = async (
    connection: RedisConnection,
    entry: StreamEntry,
    deliveries: number,
  ): Promise<void> => {
    const fields = entry.fields;
    await connection.sendCommand(deadLetterEntry(deadLetters, entry, deliveries));
    const to = fields[FIELD_REPLY_TO];
    const correlation = fields[FIELD_CORRELATION];
    const answer = abandonedAnswer(fields[FIELD_BODY], deliveries, deadLetters);
    if (to !== undefined && correlation !== undefined && answer !== undefined) {
      await connection.sendCommand(replyEntry(to, correlation, answer));
      renewExpiry(connection, to);
    }
    deadLettered++;
    acknowledge(entry.id);
  };

  const createGroup = async (): Promise<void> => {
    try {
      await commands?.sendCommand(['XGROUP', 'CREATE', queue, group, '0', 'MKSTREAM']);
    } catch (error) {
      if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error;
    }
  };

  /**
   * Waits (at most {@link CLOSE_WAIT_MS} in all) for the answers on their way to Redis, then for
   * the acknowledgement of every request answered: closing does not leave them to be answered
   * again. An answer Redis has not confirmed by then leaves its request pending, for another
   * worker to answer again.
   */
  const settle = async (): Promise<void> => {
    const deadline = Date.now() + CLOSE_WAIT_MS;
    if (answering > 0) {
      await settlesWithin(new Promise<void>((resolve) => (answersDone = resolve)), CLOSE_WAIT_MS);
    }
    acknowledgements.flush();
    const acknowledged = acknowledgements.last;
    if (acknowledged !== undefined) {
      await settlesWithin(acknowledged, Math.max(0, deadline - Date.now()));
    }
  };

  const close = async (reason?: unknown): Promise<void> => {
    if (closed) return;
    closed = true;
    if (renewTimer !== undefined) clearInterval(renewTimer);
    wakeReader?.();
    dropConnection(reader);
    await readLoop;
    await settle();
    dropConnection(commands);
    // Requests still held stay pending in Redis: another worker takes them over.
    if (!closeNotified) {
      closeNotified = true;
      handler?.onClose(closeError(reason));
    }
  };

  return {
    consumer,
    get claimed() {
      return claimed;
    },
    get deadLettered() {
      return deadLettered;
    },
    async start(h) {
      if (handler !== undefined) throw new Error('Transport already started');
      handler = h;
      try {
        ({ commands, reader } = await openPair(options));
        await createGroup();
      } catch (error) {
        dropConnection(commands);
        dropConnection(reader);
        throw new TransportError(`Cannot join group "${group}" of queue "${queue}"`, {
          cause: error,
        });
      }
      if (closed) {
        dropConnection(commands);
        dropConnection(reader);
        return;
      }
      readLoop = runReads(reader);
      renewTimer = setInterval(
        () => void renewAndClaim().catch(report),
        Math.max(10, Math.floor(visibility / 3)),
      );
      renewTimer.unref?.();
      void renewAndClaim().catch(report);
    },
    send(message) {
      if (closed || commands === undefined) return Promise.reject(new ConnectionClosedError());
      const taken = requests.answered(message);
      if (taken === undefined) {
        report(new TransportError(`No caller to route a message to on queue "${queue}"; dropped`));
        return SENT;
      }
      const to = taken.entry.fields[FIELD_REPLY_TO];
      const correlation = taken.entry.fields[FIELD_CORRELATION];
      if (to === undefined || correlation === undefined) {
        release(taken, true);
        return SENT;
      }
      const answer = taken;
      answering++;
      /** The answer is on the stream (`done`), or not (left pending for another worker). */
      const settled = (done: boolean): void => {
        release(answer, done);
        if (--answering === 0) answersDone?.();
      };
      // The answer first, the reply stream's expiry renewed right behind it (the same write);
      // the request is acknowledged only once the answer is on the stream (with the turn's
      // other answers, in one XACK). A worker that dies before that leaves the request to be
      // answered again (a duplicate the caller drops), never unanswered.
      const added = command(commands, replyEntry(to, correlation, message));
      renewExpiry(commands, to);
      // A chain, not an async function: its own promise and resumption cost more per call.
      return added.then(
        () => settled(true),
        (error: unknown) => {
          // Left pending and renewed no more: another worker retries it.
          settled(false);
          throw new TransportError(`Could not answer on "${to}"`, { cause: error });
        },
      );
    },
    close,
    [asyncDisposeSymbol]: () => close(),
  } as RedisQueueWorkerTransport;
}
