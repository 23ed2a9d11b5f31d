/**
 * The worker's side of the queue transport: one member of a Redis consumer group, taking requests
 * off the stream, handing them to its server, and routing each answer back to its caller.
 *
 * @module
 */
import {
  ConnectionClosedError,
  ErrorCode,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  headIdText,
  SENT,
  scanEnvelope,
  scanHead,
  stringifyId,
  TurnoverMap,
} from '@jsonrpc-kit/core/engine';
import {
  CLOSE_WAIT_MS,
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
  FIELD_DELIVERIES,
  FIELD_ENTRY_ID,
  FIELD_REPLY_TO,
  isBatchText,
  type RedisQueueOptions,
  uniqueId,
} from './queue-keys.js';
import { readEntries, readStreamReply, type StreamEntry } from './stream-reply.js';

/**
 * How long a request may stay taken by a worker that shows no sign of life before another worker
 * takes it over, in milliseconds. @default 30000
 */
export const DEFAULT_VISIBILITY_TIMEOUT = 30_000;

/** How many requests one worker holds at once. @default 64 */
export const DEFAULT_WORKER_CONCURRENCY = 64;

/**
 * How many times a request is handed to a worker before it is given up on: answered with an
 * error, acknowledged and parked on the dead-letter stream. @default 5
 */
export const DEFAULT_MAX_DELIVERIES = 5;

/** Entries a reply stream keeps, about (`XADD … MAXLEN ~`). */
const REPLY_MAX_LENGTH = '10000';

/** The command that puts an answer on its caller's reply stream (trimmed to about its bound). */
function replyEntry(to: string, correlation: string, body: string): string[] {
  return [
    'XADD',
    to,
    'MAXLEN',
    '~',
    REPLY_MAX_LENGTH,
    '*',
    FIELD_CORRELATION,
    correlation,
    FIELD_BODY,
    body,
  ];
}

/** Entries the dead-letter stream keeps, about (`XADD … MAXLEN ~`): the oldest go first. */
const DEAD_LETTER_MAX_LENGTH = '10000';

/** Options of {@link createRedisQueueWorkerTransport}. */
export interface RedisQueueWorkerTransportOptions extends RedisQueueOptions {
  /**
   * The consumer group: the workers that share the queue, each request going to one of them.
   *
   * @default "workers"
   */
  readonly group?: string | undefined;
  /**
   * This worker's name in the group; unique per worker.
   *
   * @default a random UUID
   */
  readonly consumer?: string | undefined;
  /**
   * After how long without a sign of life a request taken by a worker is taken over by another
   * (`XAUTOCLAIM`), in milliseconds. A live worker renews its requests every third of it, so a
   * long handler is never taken over while its worker runs.
   *
   * @default {@link DEFAULT_VISIBILITY_TIMEOUT}
   */
  readonly visibilityTimeout?: number | undefined;
  /**
   * How many requests this worker holds at once; it takes no more until one is answered.
   *
   * @default {@link DEFAULT_WORKER_CONCURRENCY}
   */
  readonly concurrency?: number | undefined;
  /**
   * How long a caller's reply stream lives after its last answer, in seconds.
   *
   * @default {@link DEFAULT_REPLY_TTL_SECONDS}
   */
  readonly replyTtlSeconds?: number | undefined;
  /**
   * How many times a request may be handed to a worker (Redis counts each delivery: the first
   * read and every takeover). A request taken over once more than this (every worker that took
   * it stopped before answering, as a request that crashes its worker does) is not run again: its
   * caller gets an error (-32603, `data: { deliveries }`), and the request is acknowledged and
   * copied to the dead-letter stream `<queue>:dead` ({@link deadLetterKey}).
   *
   * @default {@link DEFAULT_MAX_DELIVERIES}
   */
  readonly maxDeliveries?: number | undefined;
}

/** A {@link Transport} that serves one worker's share of a Redis queue. */
export interface RedisQueueWorkerTransport extends Transport {
  /** This worker's name in the consumer group. */
  readonly consumer: string;
  /** Requests this worker took over from a worker that stopped renewing them. */
  readonly claimed: number;
  /** Requests this worker gave up on after `maxDeliveries` and parked on the dead-letter stream. */
  readonly deadLettered: number;
  /** Closes the transport (as `close()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

interface Taken {
  readonly entry: StreamEntry;
  /** The id's JSON text for a single request; `undefined` for a batch. */
  readonly key: string | undefined;
}

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
  /** Every entry this worker holds, by stream id (a `TurnoverMap`: one key per request). */
  const held = new TurnoverMap<string, Taken>();
  /** The request being served for each id text. */
  const byId = new TurnoverMap<string, Taken>();
  /** Requests waiting because a request with the same id is being served. */
  const waiting = new Map<string, Taken[]>();
  let batch: Taken | undefined;
  const waitingBatches: Taken[] = [];
  let wakeReader: (() => void) | undefined;

  const report = (error: Error): void => handler?.onError?.(error);

  /** Entries to acknowledge: one `XACK` for all of a turn's, sent when the turn's code is done. */
  let toAcknowledge: string[] = [];
  /** The last `XACK` sent, for `close()` to wait for. */
  let acknowledged: Promise<unknown> | undefined;
  /** Reply streams whose expiry was renewed in this turn, right after their first answer. */
  const renewed = new Set<string>();
  /** Answers on their way to Redis, and what `close()` waits on for them. */
  let answering = 0;
  let answersDone: (() => void) | undefined;

  const acknowledgeAll = (): void => {
    const ids = toAcknowledge;
    toAcknowledge = [];
    if (ids.length > 0 && commands !== undefined) {
      // Done with: acknowledged, and deleted from the stream, which so holds only the requests
      // not yet done (what callers count against `maxBacklog`; nothing is trimmed).
      const acked = commands.sendCommand(['XACK', queue, group, ...ids]);
      const deleted = commands.sendCommand(['XDEL', queue, ...ids]);
      acknowledged = Promise.all([acked, deleted]).catch(report);
    }
  };

  const acknowledge = (id: string): void => {
    if (toAcknowledge.push(id) === 1) queueMicrotask(acknowledgeAll);
  };

  const ack = (id: string): void => {
    held.delete(id);
    acknowledge(id);
    wakeReader?.();
  };

  /** Renews a reply stream's expiry once a turn, sent right behind the turn's first answer to it. */
  const renewExpiry = (connection: RedisConnection, to: string): void => {
    if (renewed.has(to)) return;
    if (renewed.size === 0) queueMicrotask(() => renewed.clear());
    renewed.add(to);
    connection.sendCommand(['EXPIRE', to, replyTtl]).catch(report);
  };

  const serve = (taken: Taken): void => {
    if (taken.key === undefined) batch = taken;
    else byId.set(taken.key, taken);
    handler?.onMessage(taken.entry.fields[FIELD_BODY] ?? '');
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
      const taken: Taken = { entry, key: undefined };
      held.set(entry.id, taken);
      if (batch === undefined) serve(taken);
      else waitingBatches.push(taken);
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
    const taken: Taken = { entry, key };
    held.set(entry.id, taken);
    if (!byId.has(key)) serve(taken);
    else {
      const list = waiting.get(key);
      if (list === undefined) waiting.set(key, [taken]);
      else list.push(taken);
    }
  };

  /**
   * Ends this worker's hold on a request and serves the next one waiting for its id.
   *
   * @param done - whether it is done with (acknowledged with the turn's others); `false` to
   *   leave it pending in Redis for another worker to retry
   */
  const release = (taken: Taken, done: boolean): void => {
    if (done) ack(taken.entry.id);
    else {
      held.delete(taken.entry.id);
      wakeReader?.();
    }
    if (taken.key === undefined) {
      batch = undefined;
      const next = waitingBatches.shift();
      if (next !== undefined) serve(next);
      return;
    }
    byId.delete(taken.key);
    const list = waiting.get(taken.key);
    const next = list?.shift();
    if (list !== undefined && list.length === 0) waiting.delete(taken.key);
    if (next !== undefined) serve(next);
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
    const deliveries = await deliveriesOf(connection, entries);
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

  /** How many times each of the entries just taken over was delivered, as Redis counts. */
  const deliveriesOf = async (
    connection: RedisConnection,
    entries: readonly StreamEntry[],
  ): Promise<Map<string, number>> => {
    const reply = await connection.sendCommand([
      'XPENDING',
      queue,
      group,
      entries[0]!.id,
      entries[entries.length - 1]!.id,
      String(entries.length + held.size),
      consumer,
    ]);
    const counts = new Map<string, number>();
    if (Array.isArray(reply)) {
      for (const row of reply) {
        if (Array.isArray(row)) counts.set(String(row[0]), Number(row[3]));
      }
    }
    return counts;
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
    const flat: string[] = [];
    for (const name of Object.keys(fields)) flat.push(name, fields[name]!);
    await connection.sendCommand([
      'XADD',
      deadLetters,
      'MAXLEN',
      '~',
      DEAD_LETTER_MAX_LENGTH,
      '*',
      ...flat,
      FIELD_ENTRY_ID,
      entry.id,
      FIELD_DELIVERIES,
      String(deliveries),
    ]);
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
    acknowledgeAll();
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
      let taken: Taken | undefined;
      if (isBatchText(message)) taken = batch;
      else {
        // The server's own answer: read from its head (scanned when not core's).
        let key = headIdText(message, 'response');
        if (key === undefined) {
          const envelope = scanHead(message) ?? scanEnvelope(message);
          if (envelope.kind === 'response' || envelope.kind === 'unknown') {
            key = stringifyId(envelope.id, envelope.rawId);
          }
        }
        if (key !== undefined) taken = byId.get(key);
        // An error with id null that no request with id null waits for answers the batch being
        // served (`[]`, over the server's batch limit): its caller is the one to get it.
        if (taken === undefined && key === 'null') taken = batch;
      }
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

/**
 * The answer to a request given up on: an error for each request in it, with its own id; none
 * for notifications alone.
 *
 * @param body - the request's text
 * @param deliveries - how many times it was handed out
 * @param deadLetters - the dead-letter stream's key
 * @returns the answer's text, or `undefined` when nothing in it expects one
 */
function abandonedAnswer(
  body: string | undefined,
  deliveries: number,
  deadLetters: string,
): string | undefined {
  const error = JSON.stringify({
    code: ErrorCode.InternalError,
    message: `Request given up on after ${deliveries} deliveries: every worker that took it stopped before answering (parked on "${deadLetters}")`,
    data: { deliveries },
  });
  const answer = (id: string): string => `{"jsonrpc":"2.0","id":${id},"error":${error}}`;
  if (body === undefined) return undefined;
  if (!isBatchText(body)) {
    let key = headIdText(body, 'request');
    if (key === undefined) {
      const envelope = scanHead(body) ?? scanEnvelope(body);
      if (envelope.kind === 'notification' || envelope.kind === 'response') return undefined;
      key = stringifyId(envelope.id, envelope.rawId);
    }
    return answer(key);
  }
  let members: unknown;
  try {
    members = JSON.parse(body);
  } catch {
    return answer('null');
  }
  if (!Array.isArray(members) || members.length === 0) return answer('null');
  const answers: string[] = [];
  for (const member of members) {
    if (member === null || typeof member !== 'object' || !('method' in member)) {
      answers.push(answer('null'));
    } else if ('id' in member) {
      const id = (member as { id: unknown }).id;
      answers.push(
        answer(typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : 'null'),
      );
    }
  }
  return answers.length === 0 ? undefined : `[${answers.join(',')}]`;
}
