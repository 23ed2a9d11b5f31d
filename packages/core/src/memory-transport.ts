/**
 * An in-memory, linked pair of transports: for tests of the endpoints and for in-process use.
 *
 * @module
 */
import { ConnectionClosedError } from './errors.js';
import { toError } from './to-error.js';
import { SENT, type Transport } from './transport.js';
import { createTransportState, type TransportState } from './transport-state.js';

interface Side {
  readonly state: TransportState;
  /** Sent to this side and not yet handed to its state (delivery is asynchronous). */
  readonly inbox: string[];
  scheduled: boolean;
  /** Closed: sends from this side are refused; its state closes after its inbox. */
  closed: boolean;
  closeError: Error | undefined;
}

function newSide(): Side {
  return {
    state: createTransportState(),
    inbox: [],
    scheduled: false,
    closed: false,
    closeError: undefined,
  };
}

function flush(side: Side): void {
  side.scheduled = false;
  const inbox = side.inbox;
  // Messages queued before the close are still delivered, then onClose fires once.
  for (let i = 0; i < inbox.length; i++) side.state.deliver(inbox[i]!);
  inbox.length = 0;
  if (side.closed) side.state.close(side.closeError);
}

function schedule(side: Side): void {
  if (side.scheduled) return;
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
    start: (handler) => own.state.start(handler),
    send(message) {
      if (own.closed) return Promise.reject(new ConnectionClosedError());
      peer.inbox.push(message);
      schedule(peer);
      return SENT;
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
