/**
 * A throwaway `redis-server` for tests, benchmarks and demos: on 127.0.0.1, a free port and a
 * temporary directory, no persistence. Entry `@jsonrpc-kit/redis/testing`.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { asyncDisposeSymbol } from '@jsonrpc-kit/core/engine';

/** What to do when `redis-server` is missing. */
export const REDIS_SERVER_INSTALL_HINT: string =
  'redis-server is not installed (install it: apt-get install -y redis-server)';

/** Where Linux says which ports it hands out by itself. */
const EPHEMERAL_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';

/** Milliseconds {@link startRedisServer} waits for the server to answer `PING`. @default 10000 */
export const DEFAULT_REDIS_START_TIMEOUT = 10_000;

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /**
   * The `redis-server` binary.
   *
   * @default the first `redis-server` on `PATH` ({@link findRedisServer})
   */
  readonly binary?: string | undefined;
  /**
   * Milliseconds to wait for the server to answer `PING`, at each start.
   *
   * @default {@link DEFAULT_REDIS_START_TIMEOUT}
   */
  readonly startTimeout?: number | undefined;
}

/** A `redis-server` child process started by {@link startRedisServer}. */
export interface RedisServerProcess {
  /**
   * Its port on 127.0.0.1, kept across restarts. On Linux it is below the system's ephemeral
   * range, so no other socket takes it while a restart keeps the server down.
   */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /**
   * Stops the server (SIGTERM, then SIGKILL after 2 s) and removes its directory. Idempotent.
   *
   * @returns resolves once it exited
   */
  stop(): Promise<void>;
  /**
   * Stops the server and starts it again on the same port, empty, after `downMs`.
   *
   * @param downMs - how long it stays down
   * @param whileDown - called once the old process has exited; the server starts again when
   *   both `downMs` have passed and what it returns has settled. A test that must act during the
   *   outage does so here rather than after a guessed delay.
   * @default downMs 300
   * @returns resolves once it answers again; rejects with what `whileDown` threw, once the server
   *   is back
   * @throws Error when it does not come back within the start timeout
   */
  restart(downMs?: number, whileDown?: () => unknown): Promise<void>;
  /** Stops it (as `stop()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Finds `redis-server` on `PATH`.
 *
 * @returns its path, or `undefined` when it is not installed
 * @example
 * ```ts
 * import { findRedisServer } from '@jsonrpc-kit/redis/testing';
 *
 * console.log(findRedisServer() ?? 'not installed');
 * ```
 */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Listens on `port` of 127.0.0.1 (0: one the system picks) and closes again.
 *
 * @returns the port, or `undefined` when it is taken
 */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/** The first port of Linux's ephemeral range, when it can be read. */
function ephemeralStart(): number | undefined {
  try {
    const start = Number(readFileSync(EPHEMERAL_RANGE, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A free port, below the system's ephemeral range where it is known: the system never hands one
 * of those out by itself (to a `listen(0)` or to an outgoing connection), so a restarted server
 * finds its port free again. A port the system picks would be one of its ephemeral ones, which
 * any other socket of the machine may take while the server is down.
 */
async function freePort(): Promise<number> {
  const start = ephemeralStart();
  if (start !== undefined && start > 2048) {
    const low = Math.max(1024, start - 16_384);
    for (let attempt = 0; attempt < 32; attempt++) {
      const port = await tryPort(low + Math.floor(Math.random() * (start - low)));
      if (port !== undefined) return port;
    }
  }
  const port = await tryPort(0);
  if (port === undefined) throw new Error('No free port on 127.0.0.1');
  return port;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const timer = setTimeout(() => finish(false), 500);
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
}

/**
 * Starts a throwaway `redis-server`: bound to 127.0.0.1 on a free port (on Linux, one below the
 * system's ephemeral range), in a new temporary directory, with persistence off. Resolves once it
 * answers `PING`.
 *
 * @param options - the binary and the start timeout
 * @returns the running server
 * @throws Error with {@link REDIS_SERVER_INSTALL_HINT} when `redis-server` is not installed, or
 *   when it does not answer within the start timeout
 * @example
 * ```ts
 * import { findRedisServer, startRedisServer } from '@jsonrpc-kit/redis/testing';
 *
 * if (findRedisServer() !== undefined) {
 *   await using redis = await startRedisServer();
 *   console.log(redis.url); // redis://127.0.0.1:<port>
 * }
 * ```
 */
export async function startRedisServer(
  options: StartRedisServerOptions = {},
): Promise<RedisServerProcess> {
  const binary = options.binary ?? findRedisServer();
  if (binary === undefined) throw new Error(REDIS_SERVER_INSTALL_HINT);
  const startTimeout = options.startTimeout ?? DEFAULT_REDIS_START_TIMEOUT;
  const dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-redis-'));
  const port = await freePort();
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'];
  let child: ChildProcess | undefined;
  let stopped = false;

  const stopChild = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };

  const launch = async (): Promise<void> => {
    const started = spawn(binary, [...args, '--dir', dir], { stdio: 'ignore' });
    child = started;
    let failed: Error | undefined;
    started.once('error', (error) => (failed = error));
    const deadline = Date.now() + startTimeout;
    while (Date.now() < deadline && failed === undefined && started.exitCode === null) {
      if (await answersPing(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stopChild();
    throw new Error(
      `redis-server did not answer on port ${port}` +
        (failed === undefined ? ` within ${startTimeout} ms` : `: ${failed.message}`),
    );
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await stopChild();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart(downMs = 300, whileDown?: () => unknown) {
      await stopChild();
      const down = new Promise((resolve) => setTimeout(resolve, downMs));
      const acted = Promise.resolve().then(whileDown);
      await Promise.allSettled([down, acted]);
      await launch();
      await acted;
    },
    [asyncDisposeSymbol]: stop,
  } as RedisServerProcess;
}
