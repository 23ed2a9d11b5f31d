/**
 * An in-memory, linked pair of transports: for tests of the endpoints and for in-process use.
 *
 * @module
 */
import { ConnectionClosedError, toError } from './errors.js';
import type { Transport, TransportHandler } from './transport.js';

interface Side {
  handler: TransportHandler | undefined;
  inbox: string[];
  scheduled: boolean;
  closed: boolean;
  closeError: Error | undefined;
  closeNotified: boolean;
}

function newSide(): Side {
  return {
    handler: undefined,
    inbox: [],
    scheduled: false,
    closed: false,
    closeError: undefined,
    closeNotified: false,
  };
}

function flush(side: Side): void {
  side.scheduled = false;
  const handler = side.handler;
  if (handler === undefined) return;
  const inbox = side.inbox;
  // Messages queued before the close are still delivered, then onClose fires once.
  for (let i = 0; i < inbox.length; i++) handler.onMessage(inbox[i]!);
  inbox.length = 0;
  if (side.closed && !side.closeNotified) {
    side.closeNotified = true;
    handler.onClose(side.closeError);
  }
}

function schedule(side: Side): void {
  if (side.scheduled || side.handler === undefined) return;
  side.scheduled = true;
  queueMicrotask(() => flush(side));
}

function makeTransport(own: Side, peer: Side): Transport {
  const closeBoth = (reason?: unknown): void => {
    const error =
      reason === undefined
        ? undefined
        : toError(reason, (message) => new ConnectionClosedError(message));
    for (const side of [own, peer]) {
      if (side.closed) continue;
      side.closed = true;
      side.closeError = error;
      schedule(side);
    }
  };
  return {
    start(handler) {
      if (own.handler !== undefined) {
        return Promise.reject(new Error('Transport already started'));
      }
      own.handler = handler;
      schedule(own);
      return Promise.resolve();
    },
    send(message) {
      if (own.closed) return Promise.reject(new ConnectionClosedError());
      peer.inbox.push(message);
      schedule(peer);
      return Promise.resolve();
    },
    close(reason) {
      closeBoth(reason);
      return Promise.resolve();
    },
  };
}

/**
 * Two transports linked to each other: what one sends, the other receives, asynchronously and in
 * order. Closing either closes both (each side's `onClose` fires once, after the messages already
 * sent to it).
 *
 * @returns `[a, b]`, the two ends
 * @example
 * ```ts
 * const [clientSide, serverSide] = createMemoryTransportPair();
 * server.connect(serverSide);
 * const client = createClient(clientSide);
 * ```
 */
export function createMemoryTransportPair(): [Transport, Transport] {
  const a = newSide();
  const b = newSide();
  return [makeTransport(a, b), makeTransport(b, a)];
}
