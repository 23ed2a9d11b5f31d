/**
 * Batch records: which calls went out (or will go out) in one batch message, an explicit batch or
 * one the owner holds until it sends it (auto-batching). A record knows which of its calls still
 * wait, so that its send stops once every one of them gave up, and so that an error answer with
 * id `null` can be placed: it fails the members of that message still unanswered.
 *
 * @module
 */

import type { Deferred } from './deferred.js';
import { fromErrorObject, ProtocolError } from './errors.js';
import type { JsonRpcErrorObject, JsonRpcId } from './messages.js';
import type { ParsedBatch } from './parse.js';
import type { GiveUpReason, PendingCalls } from './pending.js';
import type { ErrorInfo } from './report.js';
import { sendError } from './send-error.js';
import { TurnoverMap } from './turnover-map.js';

/** The record of one batch message: its request members and how far they got. */
export interface BatchRecord {
  /** The ids of its request members, in order. */
  readonly ids: JsonRpcId[];
  /** Their methods, by the same index. */
  readonly methods: string[];
  /** Members still waiting for their answers. */
  live: number;
  /** Whether any member got an answer. */
  answered: boolean;
  /** Whether it has been handed to the transport. */
  sent: boolean;
  /** Aborts its send once every member gave up; `undefined` when none can give up. */
  controller: AbortController | undefined;
  /** Settles the notifications it holds once it was sent. */
  notified: Deferred | undefined;
}

/** The batch records of one session, by request id. Internal to the outgoing half. */
export interface BatchRecords {
  /** How many request ids belong to a record. */
  readonly size: number;
  /**
   * Makes a record.
   *
   * @param ids - the ids of its request members (more may be pushed later, before they join)
   * @param methods - their methods
   */
  create(ids: JsonRpcId[], methods: string[]): BatchRecord;
  /** Files a request member of a record (in its `ids`), registered in the pending table, under its id. */
  join(record: BatchRecord, id: JsonRpcId): void;
  /**
   * Takes a call out of its record (answered, failed, or gone).
   *
   * @returns its record, or `undefined` when it had none
   */
  leave(id: JsonRpcId, answered: boolean): BatchRecord | undefined;
  /** Give-up hook of a batch member: leaves its record, stops its send, sends the cancel notice. */
  onGiveUp(reason: GiveUpReason, id: JsonRpcId, method: string, cause?: unknown): void;
  /** A record's send failed: rejects its members still waiting and its notifications. */
  fail(record: BatchRecord, error: unknown): void;
  /**
   * The record a batch answers (its first member with a known id), read before any member is
   * settled: where an id-null error in that batch belongs.
   */
  hintOf(batch: ParsedBatch): BatchRecord | undefined;
  /**
   * An error answer with id `null`: rejects the call(s) it belongs to; when it cannot be placed
   * among several waiting calls, fails every call that went out, saying why; with none, reports it.
   */
  failNullId(error: JsonRpcErrorObject, hint: unknown, received: unknown): void;
  /** Forgets every record (the session closed). */
  clear(): void;
}

const UNEXPECTED: ErrorInfo = Object.freeze({ kind: 'unexpected-response', level: 'warn' });

/**
 * Creates the batch records of one session's outgoing half.
 *
 * @param pending - the session's pending table
 * @param giveUp - the session's give-up of a call: remembers its id, and sends the cancel notice
 *   unless `notice` is `false`
 * @param report - the error hook
 * @returns the records
 */
export function createBatchRecords(
  pending: PendingCalls,
  giveUp: (
    reason: GiveUpReason,
    id: JsonRpcId,
    method: string,
    cause: unknown,
    notice: boolean,
  ) => void,
  report: (error: Error, info: ErrorInfo) => void,
): BatchRecords {
  // A call's entry comes and goes with it: see `TurnoverMap`.
  const byId = new TurnoverMap<JsonRpcId, BatchRecord>();

  const leave = (id: JsonRpcId, answered: boolean): BatchRecord | undefined => {
    const record = byId.get(id);
    if (record === undefined) return undefined;
    byId.delete(id);
    record.live--;
    if (answered) record.answered = true;
    return record;
  };

  /** Rejects the members of a record still waiting, each with its own error. */
  const rejectRest = (
    record: BatchRecord,
    answered: boolean,
    make: (method: string, id: JsonRpcId) => Error,
  ): void => {
    const { ids, methods } = record;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!pending.has(id)) continue;
      leave(id, answered);
      pending.reject(id, make(methods[i]!, id));
    }
  };

  const unexpected = (message: string, received: unknown): void =>
    report(new ProtocolError(message, received), UNEXPECTED);

  /**
   * An id-null error that matches no single record while several calls wait: which call it
   * answers cannot be known, so every call that went out fails, each with a ProtocolError that
   * says why and carries the wire error as its `cause`. No call is left waiting for an answer
   * that will not come, and none fails without saying so. Calls still held are not touched.
   */
  const failUnplaceable = (error: JsonRpcErrorObject, received: unknown): void => {
    const wire = fromErrorObject(error);
    const reason = `An error with id null (${error.code} ${error.message}) that matches no single exchange: every call sent fails`;
    report(new ProtocolError(reason, received, { cause: wire }), UNEXPECTED);
    for (const waiting of Array.from(pending.calls())) {
      if (byId.get(waiting.id)?.sent === false) continue;
      const { id, method } = waiting;
      leave(id, true);
      pending.reject(id, new ProtocolError(reason, received, { method, id, cause: wire }));
    }
  };

  /**
   * The record an id-null error belongs to when no batch names it: all waiting calls' one, if
   * they went out together; otherwise every call that went out fails (see `failUnplaceable`).
   */
  const onlyRecord = (error: JsonRpcErrorObject, received: unknown): BatchRecord | undefined => {
    if (pending.size === 0) {
      unexpected('Received an error with id null while no call waits', received);
      return undefined;
    }
    let record: BatchRecord | undefined;
    for (const waiting of pending.calls()) {
      const of = byId.get(waiting.id);
      if (of === undefined || (record !== undefined && of !== record)) {
        record = undefined;
        break;
      }
      record = of;
    }
    if (record === undefined || !record.sent) {
      failUnplaceable(error, received);
      return undefined;
    }
    return record;
  };

  return {
    get size() {
      return byId.size;
    },
    create: (ids, methods) => ({
      ids,
      methods,
      live: 0,
      answered: false,
      sent: false,
      controller: undefined,
      notified: undefined,
    }),
    join(record, id) {
      record.live++;
      byId.set(id, record);
    },
    leave,
    onGiveUp(reason, id, method, cause) {
      const record = leave(id, false);
      if (record !== undefined) {
        // Still held: it will not be sent, nothing to cancel.
        if (!record.sent) return giveUp(reason, id, method, cause, false);
        if (record.live === 0 && !record.answered) record.controller?.abort();
      }
      giveUp(reason, id, method, cause, true);
    },
    fail(record, error) {
      rejectRest(record, false, (method, id) => sendError(error, { method, id }));
      record.notified?.reject(sendError(error, {}));
    },
    hintOf(batch) {
      if (byId.size === 0) return undefined;
      for (const member of batch.messages) {
        if (member.kind !== 'response' || member.message.id === null) continue;
        const hint = byId.get(member.message.id);
        if (hint !== undefined) return hint;
      }
      return undefined;
    },
    failNullId(error, hint, received) {
      let record = hint as BatchRecord | undefined;
      if (record === undefined && pending.size === 1) {
        const only = pending.calls().next().value!;
        if (byId.get(only.id)?.sent === false) {
          unexpected('Received an error with id null while no call waits', received);
          return;
        }
        leave(only.id, true);
        pending.reject(only.id, fromErrorObject(error, only));
        return;
      }
      record ??= onlyRecord(error, received);
      if (record === undefined) return;
      rejectRest(record, true, (method, id) => fromErrorObject(error, { method, id }));
    },
    clear() {
      byId.clear();
    },
  };
}
