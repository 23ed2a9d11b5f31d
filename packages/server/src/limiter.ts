/**
 * A counting limiter with a bounded queue: how many calls run at once on one connection (or
 * across all `handle()` calls). Plain fields, so the dispatcher's fast path takes a slot without
 * a closure or a promise.
 *
 * The limiter shared by `handle()` calls is fair across clients: each client (a key such as the
 * remote address) has its own lane with a bound on running and waiting calls, and freed slots go
 * to the waiting lanes in turn, so one client's flood cannot make another client's call wait
 * behind all of it.
 *
 * @module
 */
import { FifoQueue } from '@jsonrpc-kit/core/engine';

/** One client's share of a fair limiter. */
export interface Lane {
  readonly key: string;
  /** Calls of this client running now. */
  active: number;
  /** Waiting starts of this client, oldest first. */
  readonly queue: FifoQueue<() => void>;
}

/** The per-client bounds of a fair limiter. */
export interface FairLimits {
  /** Most calls of one client running at once. */
  readonly maxPerClient: number;
  /** Most calls of one client waiting. */
  readonly maxQueuePerClient: number;
}

/** The limiter's state. The dispatcher reads and updates it directly. */
export interface Limiter {
  /** Calls running now. */
  active: number;
  /** Most calls running at once. */
  readonly max: number;
  /** Most calls waiting. */
  readonly maxQueue: number;
  /** Waiting starts without a lane, oldest first; a shared empty queue until the first waits. */
  queue: FifoQueue<() => void>;
  /** Lanes by client key (fair limiters only). */
  readonly lanes: Map<string, Lane>;
  /** Lanes with waiting starts, in the order they get their next turn. */
  readonly turns: FifoQueue<Lane>;
  /** Waiting starts in all lanes. */
  queued: number;
  /** Per-client bounds (fair limiters only). */
  readonly fair: FairLimits | undefined;
}

/** The lanes of every limiter that is not fair: never written (no lanes). */
export const NO_LANES: Map<string, Lane> = new Map();
/** The turns of every limiter that is not fair: never written. */
export const NO_TURNS: FifoQueue<Lane> = new FifoQueue();
/** The queue of every limiter until a call of it waits (then it gets its own): never written. */
export const NO_QUEUE: FifoQueue<() => void> = new FifoQueue();

/**
 * Creates a limiter.
 *
 * @param max - most calls running at once (at least 1)
 * @param maxQueue - most calls waiting (at least 0)
 * @param fair - per-client bounds, for a limiter shared by many clients
 * @returns the limiter
 */
export function createLimiter(max: number, maxQueue: number, fair?: FairLimits): Limiter {
  return {
    active: 0,
    max: Math.max(1, max),
    maxQueue: Math.max(0, maxQueue),
    // Most limiters (one per connection) never queue: they share an empty queue until then.
    queue: NO_QUEUE,
    // Only a fair limiter fills these: the others (one per connection) share two empty ones.
    lanes: fair === undefined ? NO_LANES : new Map(),
    turns: fair === undefined ? NO_TURNS : new FifoQueue(),
    queued: 0,
    fair:
      fair === undefined
        ? undefined
        : {
            maxPerClient: Math.max(1, fair.maxPerClient),
            maxQueuePerClient: Math.max(0, fair.maxQueuePerClient),
          },
  };
}

/**
 * The lane of a client, created when it has none.
 *
 * @param limiter - a fair limiter
 * @param key - the client
 * @returns its lane
 */
export function laneOf(limiter: Limiter, key: string): Lane {
  let lane = limiter.lanes.get(key);
  if (lane === undefined) {
    lane = { key, active: 0, queue: new FifoQueue() };
    limiter.lanes.set(key, lane);
  }
  return lane;
}

/**
 * Whether a call of `lane` may take a slot now.
 *
 * @param limiter - the limiter
 * @param lane - the caller's lane, if any
 * @returns true when a slot is free for it
 */
export function hasRoom(limiter: Limiter, lane: Lane | undefined): boolean {
  return (
    limiter.active < limiter.max && (lane === undefined || lane.active < limiter.fair!.maxPerClient)
  );
}

/**
 * Whether a call of `lane` may wait for a slot.
 *
 * @param limiter - the limiter
 * @param lane - the caller's lane, if any
 * @returns true when the queues have room for it
 */
export function canWait(limiter: Limiter, lane: Lane | undefined): boolean {
  const waiting = limiter.queue.length + limiter.queued;
  if (lane === undefined) return waiting < limiter.maxQueue;
  return waiting < limiter.maxQueue && lane.queue.length < limiter.fair!.maxQueuePerClient;
}

/**
 * Queues a start behind the others of its lane (or of the limiter).
 *
 * @param limiter - the limiter
 * @param lane - the caller's lane, if any
 * @param start - runs the call once a slot is free
 */
export function wait(limiter: Limiter, lane: Lane | undefined, start: () => void): void {
  if (lane === undefined) {
    if (limiter.queue === NO_QUEUE) limiter.queue = new FifoQueue();
    limiter.queue.push(start);
    return;
  }
  if (lane.queue.length === 0) limiter.turns.push(lane);
  lane.queue.push(start);
  limiter.queued++;
}

/**
 * Drops a lane that has nothing running and nothing waiting.
 *
 * @param limiter - the limiter
 * @param lane - the lane
 */
export function forget(limiter: Limiter, lane: Lane): void {
  if (lane.active === 0 && lane.queue.length === 0 && limiter.lanes.get(lane.key) === lane) {
    limiter.lanes.delete(lane.key);
  }
}

/**
 * Frees a slot and starts waiting calls while slots are free (a waiting call that was aborted in
 * the meantime takes no slot). Lanes take turns: each gets one start before any gets a second.
 *
 * @param limiter - the limiter
 * @param lane - the lane the slot belonged to, if any
 */
export function release(limiter: Limiter, lane?: Lane): void {
  limiter.active--;
  if (lane !== undefined) {
    lane.active--;
    forget(limiter, lane);
  }
  const queue = limiter.queue;
  while (queue.length > 0 && limiter.active < limiter.max) queue.shift()!();
  const turns = limiter.turns;
  // Each lane is looked at most once per round without a start; one at its own bound waits.
  let idle = 0;
  while (turns.length > 0 && limiter.active < limiter.max && idle < turns.length) {
    const next = turns.shift()!;
    if (next.active >= limiter.fair!.maxPerClient) {
      turns.push(next);
      idle++;
      continue;
    }
    idle = 0;
    const start = next.queue.shift()!;
    limiter.queued--;
    if (next.queue.length > 0) turns.push(next);
    start();
  }
}
