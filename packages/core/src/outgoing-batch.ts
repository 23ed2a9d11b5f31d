/**
 * Outgoing batches: several calls and notifications in one message, through the session's
 * outgoing half. Two ways in, one record (`batch-records.ts`):
 *
 * ```text
 * sendBatch(members)  ── ids, texts ── pending table (each request) ── record ── "[…]" → send
 * holdBatch()         ── request / notify: id, text, pending table, record, held
 *                     ── send(): the members still waiting, "[…]" (a lone one as itself) → send
 * send fails ── the record's members still waiting reject (TransportError), its notifications too
 * ```
 *
 * @module
 */
import type { BatchRecord, BatchRecords } from './batch-records.js';
import { deferred } from './deferred.js';
import { AbortError, ConnectionClosedError } from './errors.js';
import type { JsonRpcId, JsonRpcParams } from './messages.js';
import type { PendingCallOptions, PendingCalls } from './pending.js';
import { sendError } from './send-error.js';

/** One member of a batch: a request (its answer settles one promise) or a notification. */
export interface BatchMember {
  /** `"request"` or `"notification"`. */
  readonly kind: 'request' | 'notification';
  /** The method. */
  readonly method: string;
  /** The params, when any. */
  readonly params: JsonRpcParams | undefined;
}

/** How the request members of a batch may give up. */
export interface BatchCallOptions {
  /** Aborts each request member: it rejects with `AbortError`, and the cancel notice goes out. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds each request member waits for its answer; `0` or `undefined` waits forever.
   * Once every member of a sent batch gave up, its send stops too.
   */
  readonly timeout?: number | undefined;
}

/** Options of {@link Session.sendBatch}. */
export interface BatchOptions extends BatchCallOptions {
  /**
   * Called once the members are registered, just before the batch's text is sent: an owner that
   * holds other messages (a {@link HeldBatch}) sends them here, so that they go out first.
   */
  readonly beforeSend?: (() => void) | undefined;
}

/** What {@link Session.sendBatch} hands back. */
export interface BatchSent {
  /**
   * One promise per request member, in order: its result, or its rejection (the wire error,
   * `TimeoutError`, `AbortError`, `ConnectionClosedError`, or the `TransportError` of a failed send).
   */
  readonly calls: readonly Promise<unknown>[];
  /** The ids the request members got, in the same order. */
  readonly ids: readonly JsonRpcId[];
  /**
   * For a batch of notifications only: the send, resolved once the transport took it, or rejected
   * with a `TransportError` naming the first member. `undefined` when there are request members
   * (a failed send rejects each of them) or no members at all (nothing is sent).
   */
  readonly sent: Promise<void> | undefined;
}

/**
 * A batch the owner fills over time and sends when it chooses (auto-batching). See
 * {@link Session.holdBatch}. Its members enter the pending table when added: they time out,
 * abort and fail on close as any call; a member that gives up before the batch is sent is left
 * out of it and sends no cancel notice.
 */
export interface HeldBatch {
  /** How many members it holds (requests and notifications). */
  readonly size: number;
  /** Whether {@link HeldBatch.send} was called. */
  readonly sent: boolean;
  /**
   * Adds a request: writes it and registers it in the pending table.
   *
   * @param method - the method
   * @param params - the params
   * @param options - its signal and timeout
   * @param id - the id to use (from `Session.nextId`); a new one by default
   * @returns its result
   * @throws (rejects) the wire error, TimeoutError, AbortError, ConnectionClosedError,
   *   TransportError, or the error of writing it (nothing is held then)
   */
  request(
    method: string,
    params?: JsonRpcParams,
    options?: BatchCallOptions,
    id?: JsonRpcId,
  ): Promise<unknown>;
  /**
   * Adds a notification.
   *
   * @param method - the method
   * @param params - the params
   * @returns resolves once the batch holding it was sent
   */
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  /**
   * Sends its members still waiting (and every notification) as one JSON array, a lone one as
   * itself; nothing when none is left. Call it once; add nothing after.
   */
  send(): void;
  /**
   * Drops it unsent (its owner closed): its notifications reject with `error`. Its requests fail
   * with the session's close.
   *
   * @param error - the rejection
   */
  drop(error: Error): void;
}

/** What a batch needs from the outgoing half. */
export interface BatchContext {
  /** The pending table. */
  readonly pending: PendingCalls;
  /** The batch records, made on first use. */
  records(): BatchRecords;
  /** The next id. */
  nextId(): JsonRpcId;
  /** Writes a request. */
  requestText(id: JsonRpcId, method: string, params: JsonRpcParams | undefined): string;
  /** Writes a notification. */
  notificationText(method: string, params: JsonRpcParams | undefined): string;
  /** Sends a text in call order; the signal stops the send. */
  send(text: string, signal?: AbortSignal): Promise<void>;
  /** Whether the session has closed. */
  isClosed(): boolean;
}

/** Whether a member with these options can give up on its own. */
const canGiveUp = (signal: AbortSignal | undefined, timeout: number): boolean =>
  signal !== undefined || (timeout > 0 && timeout < Number.POSITIVE_INFINITY);

/** Marks a notification among a held batch's members. */
const NOTIFICATION: unique symbol = Symbol('notification');

const NOTHING: BatchSent = Object.freeze({ calls: [], ids: [], sent: undefined });

const ignore = (): void => {};

/**
 * Sends one batch: writes every member (taking ids), registers the requests, sends the array.
 *
 * @param ctx - the outgoing half
 * @param members - the members, in order
 * @param options - signal and timeout of every request member; `beforeSend`
 * @returns the promises of the request members, or the send of a batch of notifications
 * @throws ConnectionClosedError, AbortError (the signal was aborted), the error of writing a
 *   member, or that of an id already pending: nothing was registered or sent then
 */
export function sendBatch(
  ctx: BatchContext,
  members: readonly BatchMember[],
  options: BatchOptions | undefined,
): BatchSent {
  if (ctx.isClosed()) {
    throw new ConnectionClosedError(undefined, { method: members[0]?.method ?? 'batch' });
  }
  if (members.length === 0) return NOTHING;
  const signal = options?.signal;
  if (signal?.aborted) throw new AbortError({ cause: signal.reason });
  const timeout = options?.timeout ?? 0;
  const texts: string[] = [];
  const ids: JsonRpcId[] = [];
  const methods: string[] = [];
  for (const member of members) {
    if (member.kind === 'notification') {
      texts.push(ctx.notificationText(member.method, member.params));
    } else {
      const id = ctx.nextId();
      texts.push(ctx.requestText(id, member.method, member.params));
      ids.push(id);
      methods.push(member.method);
    }
  }
  const { pending } = ctx;
  const records = ctx.records();
  const record = records.create(ids, methods);
  const timed = canGiveUp(signal, timeout);
  const addOptions: PendingCallOptions | undefined = timed
    ? { timeout, signal, onGiveUp: records.onGiveUp }
    : undefined;
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    try {
      calls.push(pending.add(id, methods[i]!, addOptions));
    } catch (error) {
      // A duplicate id from a custom generator: fail the members registered so far.
      for (let j = 0; j < i; j++) {
        calls[j]!.then(undefined, ignore);
        records.leave(ids[j]!, false);
        pending.reject(ids[j]!, error as Error);
      }
      throw error;
    }
    records.join(record, id);
  }
  if (timed && ids.length > 0) record.controller = new AbortController();
  options?.beforeSend?.();
  record.sent = true;
  const sent = ctx.send('[' + texts.join(',') + ']', record.controller?.signal);
  if (ids.length === 0) {
    return {
      calls,
      ids,
      sent: sent.then(undefined, (error: unknown) => {
        throw sendError(error, { method: members[0]!.method });
      }),
    };
  }
  sent.then(undefined, (error: unknown) => records.fail(record, error));
  return { calls, ids, sent: undefined };
}

/**
 * Opens a batch that holds its members until it is sent.
 *
 * @param ctx - the outgoing half
 * @returns the batch
 */
export function holdBatch(ctx: BatchContext): HeldBatch {
  return new Held(ctx, ctx.records());
}

/** A held batch: its texts, whom each belongs to, and its record. */
class Held implements HeldBatch {
  readonly #ctx: BatchContext;
  readonly #records: BatchRecords;
  readonly #record: BatchRecord;
  /** The members' texts, in order. */
  readonly #texts: string[] = [];
  /** By the same index: a request's id, or {@link NOTIFICATION}. */
  readonly #of: (JsonRpcId | typeof NOTIFICATION)[] = [];

  constructor(ctx: BatchContext, records: BatchRecords) {
    this.#ctx = ctx;
    this.#records = records;
    this.#record = records.create([], []);
  }

  get size(): number {
    return this.#texts.length;
  }

  get sent(): boolean {
    return this.#record.sent;
  }

  request(
    method: string,
    params?: JsonRpcParams,
    options?: BatchCallOptions,
    givenId?: JsonRpcId,
  ): Promise<unknown> {
    const ctx = this.#ctx;
    if (ctx.isClosed()) return Promise.reject(new ConnectionClosedError(undefined, { method }));
    let id: JsonRpcId;
    let text: string;
    try {
      id = givenId === undefined ? ctx.nextId() : givenId;
      text = ctx.requestText(id, method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    const signal = options?.signal;
    const timeout = options?.timeout ?? 0;
    const timed = canGiveUp(signal, timeout);
    if (signal?.aborted) {
      return Promise.reject(new AbortError({ method, id, cause: signal.reason }));
    }
    const records = this.#records;
    let promise: Promise<unknown>;
    try {
      promise = ctx.pending.add(
        id,
        method,
        timed ? { timeout, signal, onGiveUp: records.onGiveUp } : undefined,
      );
    } catch (error) {
      return Promise.reject(error);
    }
    const record = this.#record;
    record.ids.push(id);
    record.methods.push(method);
    records.join(record, id);
    if (timed) record.controller ??= new AbortController();
    this.#texts.push(text);
    this.#of.push(id);
    return promise;
  }

  notify(method: string, params?: JsonRpcParams): Promise<void> {
    const ctx = this.#ctx;
    if (ctx.isClosed()) return Promise.reject(new ConnectionClosedError(undefined, { method }));
    let text: string;
    try {
      text = ctx.notificationText(method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#texts.push(text);
    this.#of.push(NOTIFICATION);
    return (this.#record.notified ??= deferred()).promise;
  }

  send(): void {
    const record = this.#record;
    record.sent = true;
    const { pending } = this.#ctx;
    const texts = this.#texts;
    const of = this.#of;
    const out: string[] = [];
    for (let i = 0; i < of.length; i++) {
      const id = of[i]!;
      // Calls that gave up while held are not sent.
      if (id === NOTIFICATION || pending.has(id)) out.push(texts[i]!);
    }
    if (out.length === 0) {
      record.notified?.resolve();
      return;
    }
    const text = out.length === 1 ? out[0]! : '[' + out.join(',') + ']';
    this.#ctx.send(text, record.controller?.signal).then(
      () => record.notified?.resolve(),
      (error: unknown) => this.#records.fail(record, error),
    );
  }

  drop(error: Error): void {
    this.#record.notified?.reject(error);
  }
}
