/**
 * The send path of every WebSocket the package writes to, the server's sockets and the client's
 * alike: write coalescing per event-loop turn, and the wait of a `send()` once the socket holds
 * more than its high-water mark. The state lives in two fields of the socket's owner (a
 * {@link SendFlowOwner}), so that an idle socket holds no closure and no object for either: an
 * object is made only while a socket is over its mark (the wait). No `node:` import, so the
 * client entry can use it.
 *
 * Coalescing: the first frame of a turn corks the network socket, and one `process.nextTick` for
 * every socket written in the turn uncorks them, so each socket's turn leaves in one write, as
 * late as the turn's microtasks allow (the answers a read produced go out together, and the
 * peer reads them together). Where there is no `process.nextTick` (browsers) or nothing to cork,
 * frames are written through. An owner may also hold its messages back until the turn ends and
 * frame them all there ({@link SendFlowOwner.flowFlush}): the client does, since framing each
 * message in the middle of the work that made it costs `ws` about 0.2 µs more per message.
 *
 * @module
 */
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { deferred, SENT } from '@jsonrpc-kit/core/engine';

/** The part of a Node `net.Socket` that holds writes back until `uncork()`. */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** Whether the runtime has `process.nextTick` (Node, Deno, Bun), to end a turn after its microtasks. */
const CAN_DEFER: boolean = typeof process !== 'undefined' && typeof process.nextTick === 'function';

/**
 * The shared promise of a `send()` that did not have to wait: core's `SENT`, so a session skips
 * watching a send that is already done.
 */
export const RESOLVED: Promise<void> = SENT;

/** An owner's turn: written to a socket that cannot cork. */
const WRITTEN = 1;

/**
 * Where an owner is in the current turn: `undefined` not written yet, `1` written (through, to a
 * socket that cannot cork), or the socket it corked (uncorked when the turn ends).
 */
export type FlowTurn = undefined | typeof WRITTEN | Partial<Corkable>;

/** The wait of one socket over its mark: made when a send passes the mark, dropped when it settles. */
export interface DrainWait {
  /** What every `send()` returns while the wait lasts. */
  readonly promise: Promise<void>;
  /** Bytes the socket may hold; the wait ends at or under it. */
  readonly highWaterMark: number;
  /** Looks at the buffer again; handed to {@link SendFlowOwner.flowArm}. */
  readonly check: () => void;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * What owns one socket's send path: two fields the functions of this module keep, and how to
 * look at the socket. The server's socket transport implements it with prototype methods, so a
 * served socket pays two fields for it.
 */
export interface SendFlowOwner {
  /** Where the socket is in this turn; starts `undefined`. Kept by {@link beforeSend}. */
  flowTurn: FlowTurn;
  /** The wait in progress; `undefined` while the buffer is under the mark. */
  flowWait: DrainWait | undefined;
  /** Bytes the socket holds now. */
  flowBuffered(): number;
  /** Whether the socket can still send; once it cannot, the wait rejects with `CONNECTION_CLOSED`. */
  flowOpen(): boolean;
  /** Schedules `check` for when the buffer may have drained: an event if there is one, else a poll. */
  flowArm(check: () => void): void;
  /** A wait began (the server stops reading the socket). */
  flowPause(): void;
  /** The buffer drained (the server reads the socket again). */
  flowResume(): void;
  /**
   * Writes the messages the owner held back in this turn, when {@link beforeSend} said the turn
   * ends later: called as the turn ends, before its socket is uncorked. Optional: an owner that
   * writes each frame at once has none.
   */
  flowFlush?(): void;
}

/** The owners written in this turn: one tick ends the turn for all of them. */
let writtenThisTurn: SendFlowOwner[] = [];

/** Uncorks what the turn corked, on every socket, and starts a new turn. */
function endTurn(): void {
  const written = writtenThisTurn;
  writtenThisTurn = [];
  for (let i = 0; i < written.length; i++) {
    const owner = written[i]!;
    const turn = owner.flowTurn;
    owner.flowTurn = undefined;
    owner.flowFlush?.();
    if (turn !== WRITTEN) turn?.uncork?.();
  }
}

/**
 * Call before writing a frame: the turn's first frame corks `target` until the turn ends. Cost:
 * O(1); one `process.nextTick` per turn for every socket written in it.
 *
 * @param owner - the socket's owner
 * @param target - the network socket under the WebSocket (`ws`'s `_socket`); one that cannot
 *   cork (a browser socket, Bun's `ws`) is written through
 * @returns whether the turn ends later, calling the owner's {@link SendFlowOwner.flowFlush}
 *   (false where nothing can defer it: write the frame now)
 */
export function beforeSend(owner: SendFlowOwner, target: Partial<Corkable> | undefined): boolean {
  if (owner.flowTurn !== undefined) return true;
  if (!CAN_DEFER) return false;
  if (typeof target?.cork === 'function') {
    owner.flowTurn = target;
    target.cork();
  } else owner.flowTurn = WRITTEN;
  writtenThisTurn.push(owner);
  if (writtenThisTurn.length === 1) process.nextTick(endTurn);
  return true;
}

/**
 * What a `send()` that just wrote returns: {@link RESOLVED} while the buffer is at or under the
 * mark and nobody waits, else the one wait every send shares until the buffer has drained (or
 * the socket closed: then it rejects with `CONNECTION_CLOSED`).
 *
 * @param owner - the socket's owner
 * @param highWaterMark - bytes the socket may hold
 * @returns the promise to hand the caller
 */
export function afterSend(owner: SendFlowOwner, highWaterMark: number): Promise<void> {
  const current = owner.flowWait;
  if (current !== undefined) return current.promise;
  if (owner.flowBuffered() <= highWaterMark) return RESOLVED;
  const { promise, resolve, reject } = deferred();
  const wait: DrainWait = {
    promise,
    highWaterMark,
    resolve,
    reject,
    check: () => checkDrain(owner, wait),
  };
  owner.flowWait = wait;
  owner.flowPause();
  // Armed after this turn's corked writes reached the socket.
  if (CAN_DEFER) process.nextTick(() => owner.flowArm(wait.check));
  else owner.flowArm(wait.check);
  return promise;
}

/**
 * Rejects the wait in progress, if any.
 *
 * @param owner - the socket's owner
 * @param error - why (the socket closed)
 */
export function failWait(owner: SendFlowOwner, error: Error): void {
  const current = owner.flowWait;
  if (current === undefined) return;
  owner.flowWait = undefined;
  current.reject(error);
}

function checkDrain(owner: SendFlowOwner, wait: DrainWait): void {
  if (owner.flowWait !== wait) return; // settled already (the socket closed)
  if (!owner.flowOpen()) {
    failWait(owner, new ConnectionClosedError());
  } else if (owner.flowBuffered() > wait.highWaterMark) {
    owner.flowArm(wait.check);
  } else {
    owner.flowWait = undefined;
    owner.flowResume();
    wait.resolve();
  }
}
