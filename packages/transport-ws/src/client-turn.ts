/**
 * The client transport's send path within a turn: on runtimes where a turn ends later (Node,
 * Deno, Bun) the messages sent in it wait and are framed together as it ends, just before the
 * socket is uncorked (`send-flow.ts`); elsewhere (browsers) each is framed at once. Its
 * {@link SendFlowOwner} is the send flow of whichever socket is open.
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';
import { buffered, type ClientSocket, OPEN } from './client-socket.js';
import { noop } from './noop.js';
import { beforeSend, type SendFlowOwner } from './send-flow.js';

/** How often a waiting `send()` re-checks `bufferedAmount`, in ms (browsers have no drain event). */
const BUFFER_POLL_MS = 5;

/** One client transport's turn of sends. Internal. */
export interface ClientTurn {
  /** The send flow (coalescing, buffer wait) of whichever socket is open. */
  readonly flow: SendFlowOwner;
  /**
   * Sends a message on an open socket: held for the end of the turn, or framed now.
   *
   * @param open - the open socket
   * @param message - the message
   */
  write(open: ClientSocket, message: string): void;
  /**
   * Frames this turn's messages on the socket, if it is still open. One that closed in the turn
   * takes none, as it would have taken none from `send()`.
   */
  flush(): void;
}

/**
 * Creates the turn of a client transport.
 *
 * @param socketOf - the transport's socket now (`undefined` while it has none)
 * @param report - reports a send that failed
 * @returns the turn
 */
export function createClientTurn(
  socketOf: () => ClientSocket | undefined,
  report: (error: unknown) => void,
): ClientTurn {
  /** Messages sent in this turn, framed together as it ends (see `send-flow.ts`). */
  let turnMessages: string[] = [];
  /** Their UTF-16 units: counted with the socket's buffer against the high-water mark. */
  let turnUnits = 0;

  const flushTurn = (): void => {
    const messages = turnMessages;
    if (messages.length === 0) return;
    turnMessages = [];
    turnUnits = 0;
    const open = socketOf();
    if (open === undefined || open.readyState !== OPEN) return;
    try {
      for (let i = 0; i < messages.length; i++) open.send(messages[i]!);
    } catch (error) {
      report(new TransportError('Send failed', { cause: error }));
    }
  };

  const flow: SendFlowOwner = {
    flowTurn: undefined,
    flowWait: undefined,
    flowBuffered: () => {
      const socket = socketOf();
      return (socket === undefined ? 0 : buffered(socket)) + turnUnits;
    },
    flowOpen: () => {
      const socket = socketOf();
      return socket !== undefined && socket.readyState === OPEN;
    },
    // Browsers have no drain event: poll.
    flowArm: (check) => setTimeout(check, BUFFER_POLL_MS),
    flowPause: noop,
    flowResume: noop,
    flowFlush: flushTurn,
  };

  return {
    flow,
    write(open, message) {
      // Where the turn ends later (Node, Deno, Bun), the message waits for it; elsewhere
      // (browsers) it is framed now.
      if (beforeSend(flow, open._socket)) {
        turnMessages.push(message);
        turnUnits += message.length;
      } else open.send(message);
    },
    flush: flushTurn,
  };
}
