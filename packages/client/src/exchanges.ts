/**
 * Exchanges: the calls that went out (or will go out) in one message — an explicit batch, or the
 * auto-batch queue. An exchange knows which calls still wait, so it can abort its send once every
 * one of them gave up, and so an error answer with id `null` can be attributed to it.
 *
 * @module
 */
import {
  type ErrorInfo,
  fromErrorObject,
  type JsonRpcErrorObject,
  type JsonRpcId,
  ProtocolError,
} from '@jsonrpc-kit/core';
import {
  type GiveUpReason,
  type ParsedBatch,
  type Session,
  sendError,
  TurnoverMap,
} from '@jsonrpc-kit/core/engine';

/** Settles the notifications queued in an exchange. */
export interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/** The calls that went out in one message. */
export interface Exchange {
  readonly ids: JsonRpcId[];
  readonly methods: string[];
  /** Serialized messages (for the auto-batch queue). */
  readonly texts: string[] | undefined;
  /** Calls still waiting. */
  live: number;
  /** Whether any call of it got an answer. */
  answered: boolean;
  /** Whether it has been handed to the transport. */
  sent: boolean;
  /** Aborts the send once every call gave up. */
  controller: AbortController | undefined;
  /** Settles the notifications queued in it. */
  notified: Deferred | undefined;
}

/** The client's exchanges. Internal. */
export interface Exchanges {
  /** Exchanges by call id. */
  readonly byId: TurnoverMap<JsonRpcId, Exchange>;
  /**
   * Makes an empty exchange.
   *
   * @param texts - an array to queue texts in, or `undefined`
   */
  create(texts: string[] | undefined): Exchange;
  /** A call of an exchange was answered. */
  answered(id: JsonRpcId): void;
  /** Give-up hook for calls in an exchange: leaves it, aborts its send, sends the cancel notice. */
  onGiveUp(reason: GiveUpReason, id: JsonRpcId, method: string, cause?: unknown): void;
  /** The exchange's send failed: rejects its calls still waiting. */
  fail(exchange: Exchange, error: unknown): void;
  /**
   * The exchange a batch answers (its first member with a known id), read before any member is
   * settled: where an id-null error in that batch belongs.
   */
  hintOf(batch: ParsedBatch): Exchange | undefined;
  /**
   * An error answer with id `null`: rejects the call(s) it belongs to; when it cannot be placed
   * among several waiting calls, fails every call that went out, saying why; with none, reports it.
   */
  failNullId(error: JsonRpcErrorObject, hint: unknown, received: unknown): void;
}

/**
 * Makes a deferred promise.
 *
 * @returns the promise and its settlers
 */
export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const UNEXPECTED: ErrorInfo = Object.freeze({ kind: 'unexpected-response', level: 'warn' });

/**
 * Creates the exchanges of one client.
 *
 * @param session - the client's session
 * @param report - the error hook
 * @returns the exchanges
 */
export function createExchanges(
  session: Session,
  report: (error: Error, info: ErrorInfo) => void,
): Exchanges {
  // A call's entry comes and goes with it: see core's `TurnoverMap`.
  const byId = new TurnoverMap<JsonRpcId, Exchange>();
  const pending = session.pending;

  /** Removes a call that left the pending map from its exchange. */
  const leave = (id: JsonRpcId, answered: boolean): Exchange | undefined => {
    const exchange = byId.get(id);
    if (exchange === undefined) return undefined;
    byId.delete(id);
    exchange.live--;
    if (answered) exchange.answered = true;
    return exchange;
  };

  const rejectRest = (exchange: Exchange, make: (method: string, id: JsonRpcId) => Error) => {
    const { ids, methods } = exchange;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!pending.has(id)) continue;
      leave(id, false);
      pending.reject(id, make(methods[i]!, id));
    }
  };

  const unexpected = (message: string, received: unknown): void =>
    report(new ProtocolError(message, received), UNEXPECTED);

  /**
   * An id-null error that matches no single exchange while several calls wait: which call it
   * answers cannot be known, so every call that went out fails, each with a ProtocolError that
   * says why and carries the wire error as its `cause`. No call is left waiting for an answer
   * that will not come, and none fails without saying so. Calls still queued are not touched.
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
   * The exchange an id-null error belongs to when no batch names it: all waiting calls' one, if
   * they went out together; otherwise every call that went out fails (see `failUnplaceable`).
   */
  const onlyExchange = (error: JsonRpcErrorObject, received: unknown): Exchange | undefined => {
    if (pending.size === 0) {
      unexpected('Received an error with id null while no call waits', received);
      return undefined;
    }
    let exchange: Exchange | undefined;
    for (const waiting of pending.calls()) {
      const of = byId.get(waiting.id);
      if (of === undefined || (exchange !== undefined && of !== exchange)) {
        exchange = undefined;
        break;
      }
      exchange = of;
    }
    if (exchange === undefined || !exchange.sent) {
      failUnplaceable(error, received);
      return undefined;
    }
    return exchange;
  };

  const hintOf = (batch: ParsedBatch): Exchange | undefined => {
    if (byId.size === 0) return undefined;
    for (const member of batch.messages) {
      if (member.kind !== 'response' || member.message.id === null) continue;
      const hint = byId.get(member.message.id);
      if (hint !== undefined) return hint;
    }
    return undefined;
  };

  return {
    byId,
    create: (texts) => ({
      ids: [],
      methods: [],
      texts,
      live: 0,
      answered: false,
      sent: false,
      controller: undefined,
      notified: undefined,
    }),
    answered(id) {
      if (byId.size !== 0) leave(id, true);
    },
    onGiveUp(reason, id, method, cause) {
      const exchange = leave(id, false);
      if (exchange !== undefined) {
        if (!exchange.sent) {
          // Still queued: it will not be sent, nothing to cancel.
          session.onGiveUp(reason, id, method, cause, false);
          return;
        }
        if (exchange.live === 0 && !exchange.answered) exchange.controller?.abort();
      }
      session.onGiveUp(reason, id, method, cause);
    },
    fail(exchange, error) {
      rejectRest(exchange, (method, id) => sendError(error, { method, id }));
      exchange.notified?.reject(sendError(error, {}));
    },
    hintOf,
    failNullId(error, hint, received) {
      let exchange = hint as Exchange | undefined;
      if (exchange === undefined && pending.size === 1) {
        const only = pending.calls().next().value!;
        if (byId.get(only.id)?.sent === false) {
          unexpected('Received an error with id null while no call waits', received);
          return;
        }
        leave(only.id, true);
        pending.reject(only.id, fromErrorObject(error, only));
        return;
      }
      exchange ??= onlyExchange(error, received);
      if (exchange === undefined) return;
      const { ids, methods } = exchange;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (!pending.has(id)) continue;
        leave(id, true);
        pending.reject(id, fromErrorObject(error, { method: methods[i]!, id }));
      }
    },
  };
}
