/**
 * Respawning a child process server: one client-facing {@link Transport} over a series of child
 * transports. When a child dies, the owner hears `onDisconnect` (calls in flight fail, they are
 * never replayed), a new child starts after a backoff, and the owner hears `onReconnect` (a client
 * makes its live subscriptions again there).
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import {
  type BackoffOptions,
  ConnectionClosedError,
  type Transport,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import {
  backoffDelay,
  createTransportState,
  resolveBackoff,
  toError,
} from '@jsonrpc-kit/core/engine';
import type { ProcessExit, SpawnedTransport } from './spawned-transport.js';

/**
 * How {@link spawnTransport} starts a new child after one died: core's backoff shape
 * ({@link BackoffOptions}), with this transport's defaults, and a queue for the sends made while
 * no child runs.
 */
export interface RespawnOptions extends BackoffOptions {
  /**
   * `exponential`: each further attempt in a row waits twice as long, up to `maxDelay`;
   * `fixed`: always `delay`.
   *
   * @default 'exponential'
   */
  readonly strategy?: 'fixed' | 'exponential' | undefined;
  /**
   * The delay before the first new child, in milliseconds; each further attempt in a row waits
   * twice as long, up to `maxDelay`.
   *
   * @default 100
   */
  readonly delay?: number | undefined;
  /**
   * The longest delay between two attempts, in milliseconds.
   *
   * @default 5000
   */
  readonly maxDelay?: number | undefined;
  /**
   * The share of each delay, from 0 to 1, taken off at random.
   *
   * @default 0
   */
  readonly jitter?: number | undefined;
  /**
   * How many new children may be started in a row without any of them sending a message; when
   * the last of them dies too, the transport closes with its `ProcessExitError`.
   *
   * @default 5
   */
  readonly maxAttempts?: number | undefined;
  /**
   * Messages sent while no child runs wait here and go to the next child; `send()` rejects with
   * `CONNECTION_CLOSED` beyond this many.
   *
   * @default 1000
   */
  readonly maxQueue?: number | undefined;
}

/** {@link RespawnOptions} with every member set. */
export type ResolvedRespawnOptions = {
  readonly [K in keyof RespawnOptions]-?: Exclude<RespawnOptions[K], undefined>;
};

/**
 * The respawn policy with every member set: 100 ms, doubling up to 5 s without jitter, five new
 * children in a row that die without a word, 1000 messages waiting.
 *
 * @default { strategy: 'exponential', delay: 100, maxDelay: 5000, jitter: 0, maxAttempts: 5, maxQueue: 1000 }
 * @example
 * ```ts
 * spawnTransport('node', ['server.mjs'], { respawn: { ...DEFAULT_RESPAWN, maxAttempts: 10 } });
 * ```
 */
export const DEFAULT_RESPAWN: ResolvedRespawnOptions = Object.freeze({
  strategy: 'exponential',
  delay: 100,
  maxDelay: 5000,
  jitter: 0,
  maxAttempts: 5,
  maxQueue: 1000,
});

interface Queued {
  readonly message: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Resolves respawn options.
 *
 * @param options - what the user gave
 * @returns every member set
 * @throws RangeError when a delay, `maxAttempts` or `maxQueue` is negative, or `jitter` is
 *   outside 0..1
 * @throws TypeError for an unknown option name
 */
function resolveRespawn(options: RespawnOptions | true): ResolvedRespawnOptions {
  const given = options === true ? {} : options;
  const maxQueue = given.maxQueue ?? DEFAULT_RESPAWN.maxQueue;
  if (!(maxQueue >= 0)) throw new RangeError('respawn: maxQueue must be >= 0');
  return {
    ...resolveBackoff(given, DEFAULT_RESPAWN, 'respawn', {}, { maxQueue: true }),
    maxQueue,
  };
}

/**
 * Makes the respawning transport.
 *
 * @param spawnChild - starts one child and returns its transport (not started)
 * @param options - the respawn policy
 * @param onRespawn - told each time a new child took over
 * @returns the transport, whose `process` is the child running now
 * @throws RangeError when the respawn options are out of range
 */
export function createRespawningTransport(
  spawnChild: () => SpawnedTransport,
  options: RespawnOptions | true,
  onRespawn: ((child: ChildProcess) => void) | undefined,
): SpawnedTransport {
  const policy = resolveRespawn(options);
  const contract = createTransportState();
  let current = spawnChild();
  /** Whether a child after the first was started. */
  let respawned = false;
  /** The child that serves sends now; `undefined` while a new one is on its way. */
  let live: SpawnedTransport | undefined = current;
  let attempts = 0;
  let userClosed = false;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let queue: Queued[] = [];
  let resolveExit!: (exit: ProcessExit) => void;
  const exit = new Promise<ProcessExit>((resolve) => {
    resolveExit = resolve;
  });

  const report = (error: unknown): void => contract.report(toError(error));

  const finish = (error: Error | undefined): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    const waiting = queue;
    queue = [];
    for (const item of waiting) {
      item.reject(new ConnectionClosedError('Connection closed before the message was sent'));
    }
    contract.close(error);
    current.exit.then((ended) => resolveExit(ended));
  };

  const flush = (child: SpawnedTransport): void => {
    const waiting = queue;
    queue = [];
    for (const item of waiting) child.send(item.message).then(item.resolve, item.reject);
  };

  /** Starts a child's transport, owned by this transport. */
  const adopt = (child: SpawnedTransport): void => {
    const owner = contract.handler!;
    child
      .start({
        onMessage: (text) => {
          if (child !== current) return;
          attempts = 0; // it speaks: it started well
          contract.deliver(text);
        },
        onError: (error) => {
          if (child === current) contract.report(error);
        },
        ...(owner.onTooLarge === undefined
          ? {}
          : {
              onTooLarge: (envelope, error) => {
                if (child === current) owner.onTooLarge!(envelope, error);
              },
            }),
        ...(owner.maxMessageBytes === undefined ? {} : { maxMessageBytes: owner.maxMessageBytes }),
        onClose: (error) => died(child, error),
      })
      .catch((error: unknown) => died(child, toError(error)));
  };

  /** A child's transport closed: the end, or a new child after the backoff. */
  const died = (child: SpawnedTransport, error: Error | undefined): void => {
    if (child !== current || finished) return;
    live = undefined;
    // Whatever closed its transport, that child must go.
    child.close().catch(report);
    if (userClosed) {
      finish(error);
      return;
    }
    if (!respawned && child.process.pid === undefined) {
      // The command cannot start at all (ENOENT, say): it will not get better.
      finish(error);
      return;
    }
    if (attempts >= policy.maxAttempts) {
      finish(error ?? new ConnectionClosedError());
      return;
    }
    attempts++;
    try {
      contract.handler?.onDisconnect?.(error);
    } catch (hookError) {
      report(hookError);
    }
    timer = setTimeout(respawn, backoffDelay(attempts, policy));
  };

  const respawn = (): void => {
    timer = undefined;
    if (finished) return;
    respawned = true;
    let child: SpawnedTransport;
    try {
      child = spawnChild();
    } catch (error) {
      finish(toError(error));
      return;
    }
    current = child;
    adopt(child);
    // A child that could not start closes its transport, which counts as one more attempt.
    if (child.process.pid === undefined || child !== current || finished) return;
    live = child;
    flush(child);
    try {
      contract.handler?.onReconnect?.();
    } catch (error) {
      report(error);
    }
    try {
      onRespawn?.(child.process);
    } catch (error) {
      report(error);
    }
  };

  return {
    get process() {
      return current.process;
    },
    exit,
    get maxMessageBytes() {
      return current.maxMessageBytes;
    },
    start(owner: TransportHandler) {
      if (contract.started) return contract.start(owner);
      if (finished) return Promise.reject(new ConnectionClosedError());
      const started = contract.start(owner);
      adopt(current);
      return started;
    },
    send(message) {
      if (finished || userClosed) return Promise.reject(new ConnectionClosedError());
      if (live !== undefined) return live.send(message);
      if (queue.length >= policy.maxQueue) {
        return Promise.reject(
          new ConnectionClosedError(
            `The child process is restarting and the send queue is full (${policy.maxQueue})`,
          ),
        );
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ message, resolve, reject });
      });
    },
    close(reason) {
      if (!userClosed && !finished) {
        userClosed = true;
        if (live === undefined && timer !== undefined) {
          // Between two children: nothing runs.
          finish(undefined);
        } else {
          current.close(reason).catch(report);
          if (!contract.started) finish(undefined);
        }
      }
      return exit.then(() => undefined);
    },
  } satisfies Transport & SpawnedTransport;
}
