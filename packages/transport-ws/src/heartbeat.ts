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

interface Entry {
  readonly peer: HeartbeatPeer;
  lastSeen: number;
  pingSentAt: number;
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
  const { interval, timeout } = options;
  const entries = new Set<Entry>();
  const tick = Math.max(5, Math.min(interval, timeout) / 2);
  let timer: ReturnType<typeof setInterval> | undefined;

  const sweep = (): void => {
    const now = Date.now();
    for (const entry of entries) {
      if (entry.pingSentAt !== 0) {
        if (now - entry.pingSentAt >= timeout) {
          entries.delete(entry);
          entry.peer.dead();
        }
      } else if (now - entry.lastSeen >= interval) {
        entry.pingSentAt = now;
        try {
          entry.peer.ping();
        } catch {
          // A socket that cannot ping is closing; its close event stops the watch.
        }
      }
    }
    if (entries.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    add(peer) {
      const entry: Entry = { peer, lastSeen: Date.now(), pingSentAt: 0 };
      entries.add(entry);
      if (timer === undefined) {
        timer = setInterval(sweep, tick);
        (timer as { unref?: () => void }).unref?.();
      }
      return {
        alive() {
          entry.lastSeen = Date.now();
          entry.pingSentAt = 0;
        },
        stop() {
          entries.delete(entry);
        },
      };
    },
    stop() {
      entries.clear();
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
