/**
 * Opening the package's own Redis connections: one place for the reconnect backoff and the
 * error listener every connection needs.
 *
 * @module
 */
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import {
  backoffDelay,
  checkOptionNames,
  type OptionNames,
  type ResolvedBackoffOptions,
} from '@jsonrpc-kit/core/engine';
import { createClient, type RedisClientOptions } from '@redis/client';

/** Where and how to reach Redis; shared by every factory of this package. */
export interface RedisConnectionOptions {
  /**
   * `redis://[[user][:password]@]host[:port][/db]`.
   *
   * @default "redis://127.0.0.1:6379"
   */
  readonly url?: string | undefined;
  /**
   * More options for the underlying `@redis/client` connections (TLS, credentials, database).
   * `url` above wins over `redis.url`.
   */
  readonly redis?: RedisClientOptions | undefined;
  /**
   * Called with a connection error (Redis down, a reconnect attempt that failed). The connection
   * keeps reconnecting with backoff; these errors are reports, never fatal.
   */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
}

/** Every name of {@link RedisConnectionOptions}. */
const CONNECTION_OPTION_NAMES: OptionNames<RedisConnectionOptions> = {
  url: true,
  redis: true,
  onConnectionError: true,
};

/** Old option names of this package's factories, and what replaced them. */
const RENAMED_REDIS_OPTIONS: Readonly<Record<string, string>> = {
  maxQueueLength: 'maxBacklog',
  maxQueuedSends: 'maxQueue',
  maxQueuedPublishes: 'maxQueue',
};

/**
 * Refuses option names a factory of this package does not know: the connection's and its own.
 *
 * @param factory - the factory, for the message
 * @param options - what it was given
 * @param own - the factory's names beside the connection's
 * @throws TypeError for an unknown name, naming the replacement of a renamed one
 */
export function checkRedisOptions(
  factory: string,
  options: unknown,
  own: Readonly<Record<string, true>>,
): void {
  checkOptionNames(factory, options, { ...CONNECTION_OPTION_NAMES, ...own }, RENAMED_REDIS_OPTIONS);
}

/** Longest wait between two reconnect attempts, in milliseconds. @default 2000 */
export const DEFAULT_MAX_RECONNECT_DELAY = 2000;

/**
 * The per-command timeout of the package's connections, in milliseconds: none. `@redis/client`
 * arms a timer for every command by default (5 s), which costs more than the command itself on a
 * busy queue; the package's own waits are bounded elsewhere (blocking reads by `blockMs`, calls by
 * the client's `timeout`, a lost connection rejects what it carried). Set
 * `redis: { commandOptions: { timeout } }` to have one anyway.
 *
 * @default 0 (none)
 */
export const DEFAULT_COMMAND_TIMEOUT = 0;

/**
 * How long a close waits for what Redis has not answered yet (the replies a graceful close waits
 * for, a worker's answers on their way), in milliseconds. Past it the connection is dropped: a
 * peer that stopped answering (a hung server, another service on the port) never holds a close.
 */
export const CLOSE_WAIT_MS = 2000;

/** One of the package's own connections. */
export type RedisConnection = ReturnType<typeof createClient>;

/**
 * Backoff after the `retries`-th failed attempt: 50 ms doubling, capped, with jitter.
 *
 * @param retries - attempts so far
 * @returns the delay in milliseconds
 */
export function reconnectDelay(retries: number): number {
  return Math.round(backoffDelay(retries + 1, RECONNECT));
}

/** The reconnect backoff: 50 ms doubling to 2 s, up to half of it taken off at random. */
const RECONNECT: ResolvedBackoffOptions = {
  strategy: 'exponential',
  delay: 50,
  maxDelay: DEFAULT_MAX_RECONNECT_DELAY,
  jitter: 0.5,
  maxAttempts: Number.POSITIVE_INFINITY,
};

/**
 * Opens a connection that reconnects for ever with backoff and reports errors instead of throwing
 * them.
 *
 * @param options - where Redis is
 * @param extra - per-connection options (offline queue)
 * @returns the connection, connected
 */
export async function openConnection(
  options: RedisConnectionOptions,
  extra: Partial<RedisClientOptions> = {},
): Promise<RedisConnection> {
  const base = options.redis ?? {};
  const client = createClient({
    ...base,
    ...extra,
    url: options.url ?? base.url ?? 'redis://127.0.0.1:6379',
    commandOptions: { timeout: DEFAULT_COMMAND_TIMEOUT, ...base.commandOptions },
    socket: { ...base.socket, reconnectStrategy: reconnectDelay },
  } as RedisClientOptions) as RedisConnection;
  const report = options.onConnectionError;
  client.on('error', (error: Error) => report?.(error));
  await client.connect();
  return client;
}

/**
 * Closes a connection now, whatever is in flight (a blocking read, say). Never throws.
 *
 * @param client - the connection
 */
export function dropConnection(client: RedisConnection | undefined): void {
  if (client === undefined) return;
  try {
    client.destroy();
  } catch {
    // already closed
  }
}

/**
 * Waits for `work`, at most `ms`.
 *
 * @param work - what to wait for
 * @param ms - the longest wait
 * @returns whether `work` settled (resolved or rejected) in time
 */
export async function settlesWithin(
  work: Promise<unknown>,
  ms: number = CLOSE_WAIT_MS,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A graceful close of one connection: it waits (at most {@link CLOSE_WAIT_MS}) for the replies
 * to what it carries, and is dropped when that fails or takes longer. Never throws.
 *
 * @param client - the connection
 */
export async function closeConnection(client: RedisConnection): Promise<void> {
  const closed = client.close().catch(() => dropConnection(client));
  if (!(await settlesWithin(closed))) dropConnection(client);
}

/**
 * An idempotent {@link closeConnection}.
 *
 * @param client - the connection
 * @returns the close: the first call closes, later ones resolve at once
 */
export function closeOnce(client: RedisConnection): () => Promise<void> {
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    await closeConnection(client);
  };
}

/**
 * Opens the two connections of a queue endpoint: one for commands, one for blocking reads (a
 * blocking read holds its connection). On failure, closes whichever opened.
 *
 * @param options - where Redis is
 * @param commandsExtra - per-connection options of the command connection (offline queue)
 * @returns both connections
 */
export async function openPair(
  options: RedisConnectionOptions,
  commandsExtra: Partial<RedisClientOptions> = {},
): Promise<{ commands: RedisConnection; reader: RedisConnection }> {
  const commands = await openConnection(options, commandsExtra);
  try {
    return { commands, reader: await openConnection(options) };
  } catch (error) {
    dropConnection(commands);
    throw error;
  }
}

/**
 * Sends one command. A command the client refuses at once (by throwing) comes back as a
 * rejection, as every other failure does, so a caller can chain on the promise alone.
 *
 * @param connection - the connection
 * @param args - the command and its arguments
 * @returns the reply
 */
export function command(
  connection: RedisConnection,
  args: Parameters<RedisConnection['sendCommand']>[0],
): Promise<unknown> {
  try {
    return connection.sendCommand(args);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Waits before the next attempt of a read loop: 50 ms doubling, capped at 1 s.
 *
 * @param failures - failed attempts in a row so far
 * @returns resolves after the pause
 */
export function pauseAfterFailure(failures: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** failures)));
}

/**
 * The error a transport's `onClose` gets for a `close(reason)`.
 *
 * @param reason - what `close()` was given
 * @returns `undefined` for a plain close, the reason when it is an error, else a
 *   `ConnectionClosedError` that says it
 */
export function closeError(reason: unknown): Error | undefined {
  return reason === undefined || reason instanceof Error
    ? reason
    : new ConnectionClosedError(String(reason));
}
