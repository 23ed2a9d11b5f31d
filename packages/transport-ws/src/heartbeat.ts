/**
 * Ping/pong liveness for many sockets on one timer.
 *
 * @module
 */

/** How often to ping and how long to wait for the pong. */
export interface HeartbeatOptions {
  /** Milliseconds of silence (no pong) after which a ping is sent. */
  readonly interval: number;
  /** Milliseconds to wait for the pong before the peer is considered dead. */
  readonly timeout: number;
}

/**
 * The heartbeat of servers and clients.
 *
 * @default { interval: 30_000, timeout: 10_000 }
 */
export const DEFAULT_HEARTBEAT: HeartbeatOptions = Object.freeze({
  interval: 30_000,
  timeout: 10_000,
});

/** One watched peer. */
export interface HeartbeatPeer {
  /** Sends a ping. */
  ping(): void;
  /** Called when no pong came within the timeout. */
  dead(): void;
}

/** Watches peers; a peer calls `alive()` on every pong. */
export interface HeartbeatMonitor {
  /**
   * Starts watching a peer.
   *
   * @param peer - how to ping it and what to do when it is dead
   * @returns `alive` (call on every pong) and `stop` (call when the peer closes)
   */
  add(peer: HeartbeatPeer): {
    /** Marks the peer alive: call it on every pong. */
    alive(): void;
    /** Stops watching the peer: call it when the peer closes. */
    stop(): void;
  };
  /** Stops the timer and forgets every peer. */
  stop(): void;
}

/**
 * A peer watched by {@link createHeartbeatSweeper}, carrying its own liveness fields, so that a
 * server can watch thousands of sockets without allocating closures for each (internal).
 */
export interface WatchedPeer extends HeartbeatPeer {
  /** When the peer was last heard from (`Date.now()`). */
  lastSeen: number;
  /** When the unanswered ping was sent, `0` when none is pending. */
  pingSentAt: number;
}

/** The peers of one timer (internal). */
export interface HeartbeatSweeper {
  /** Starts watching `peer` (its `lastSeen` should be set). */
  add(peer: WatchedPeer): void;
  /** Marks `peer` as heard from now (call on every pong). */
  alive(peer: WatchedPeer): void;
  /** Stops watching `peer`. */
  remove(peer: WatchedPeer): void;
  /** Stops the timer and forgets every peer. */
  stop(): void;
}

/**
 * One unref'd timer for many peers: a peer silent for `interval` ms is pinged; a ping unanswered
 * for `timeout` ms makes the peer dead. The timer runs only while some peer is watched.
 *
 * @param options - interval and timeout
 * @returns the sweeper
 */
export function createHeartbeatSweeper(options: HeartbeatOptions): HeartbeatSweeper {
  const { interval, timeout } = options;
  const peers = new Set<WatchedPeer>();
  const tick = Math.max(5, Math.min(interval, timeout) / 2);
  let timer: ReturnType<typeof setInterval> | undefined;

  const sweep = (): void => {
    const now = Date.now();
    for (const peer of peers) {
      if (peer.pingSentAt !== 0) {
        if (now - peer.pingSentAt >= timeout) {
          peers.delete(peer);
          peer.dead();
        }
      } else if (now - peer.lastSeen >= interval) {
        peer.pingSentAt = now;
        try {
          peer.ping();
        } catch {
          // A socket that cannot ping is closing; its close event stops the watch.
        }
      }
    }
    if (peers.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    add(peer) {
      peers.add(peer);
      if (timer === undefined) {
        timer = setInterval(sweep, tick);
        (timer as { unref?: () => void }).unref?.();
      }
    },
    alive(peer) {
      peer.lastSeen = Date.now();
      peer.pingSentAt = 0;
    },
    remove(peer) {
      peers.delete(peer);
    },
    stop() {
      peers.clear();
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

/**
 * Creates a heartbeat monitor: one unref'd timer for all peers. A peer silent for `interval` ms
 * is pinged; a ping unanswered for `timeout` ms makes the peer dead.
 *
 * @param options - interval and timeout
 * @returns the monitor
 * @example
 * ```ts
 * const monitor = createHeartbeatMonitor({ interval: 1000, timeout: 500 });
 * const watch = monitor.add({ ping: () => ws.ping(), dead: () => ws.terminate() });
 * ws.on('pong', watch.alive);
 * ws.on('close', watch.stop);
 * ```
 */
export function createHeartbeatMonitor(options: HeartbeatOptions): HeartbeatMonitor {
  const sweeper = createHeartbeatSweeper(options);
  return {
    add(peer) {
      const watched: WatchedPeer = {
        lastSeen: Date.now(),
        pingSentAt: 0,
        ping: () => peer.ping(),
        dead: () => peer.dead(),
      };
      sweeper.add(watched);
      return {
        alive: () => sweeper.alive(watched),
        stop: () => sweeper.remove(watched),
      };
    },
    stop: () => sweeper.stop(),
  };
}
