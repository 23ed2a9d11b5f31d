/**
 * Write coalescing of the client transport: frames sent in one turn of the event loop reach the
 * network in one write. (The server's socket transport keeps the same rule in fields of its own
 * class, so that an idle socket holds no closure for it.) No `node:` import, so the client entry
 * can use it.
 *
 * @module
 */

/** The part of a Node `net.Socket` that holds writes back until `uncork()`. */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** Runs a callback after the current turn's microtasks; `undefined` where there is no such hook. */
export type Defer = (callback: () => void) => void;

/** `process.nextTick` on Node (and runtimes that have it); `undefined` in browsers. */
export const nextTurn: Defer | undefined =
  typeof process !== 'undefined' && typeof process.nextTick === 'function'
    ? process.nextTick
    : undefined;

/**
 * Makes the corker of one socket: call it before each `send()`. The first call in a turn corks the
 * underlying socket and uncorks it after the turn, so the turn's frames leave together. A target
 * that cannot cork (a browser socket, Bun's `ws`) or a runtime without `defer` writes through.
 *
 * @param defer - when to uncork
 * @returns `cork(target)`, where `target` is the socket under the WebSocket (`ws`'s `_socket`)
 */
export function createCorker(
  defer: Defer | undefined = nextTurn,
): (target: Partial<Corkable> | undefined) => void {
  let corked: Partial<Corkable> | undefined;
  const uncork = (): void => {
    const target = corked;
    corked = undefined;
    target?.uncork?.();
  };
  return (target) => {
    if (defer === undefined || corked !== undefined || typeof target?.cork !== 'function') return;
    corked = target;
    target.cork();
    defer(uncork);
  };
}
