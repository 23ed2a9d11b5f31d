// A real redis-server per test file (the package's `testing` entry starts it). Without the binary
// the tests skip and say how to install it.
import { afterAll, beforeAll } from 'vitest';
import {
  findRedisServer,
  REDIS_SERVER_INSTALL_HINT,
  type RedisServerProcess,
  startRedisServer,
} from '../src/testing.js';

/** Why the Redis tests skip, when they do. */
export const skipReason: string | undefined =
  findRedisServer() === undefined
    ? `${REDIS_SERVER_INSTALL_HINT}: the Redis tests skip`
    : undefined;
if (skipReason !== undefined) console.warn(skipReason);

export type RedisServer = Omit<RedisServerProcess, typeof Symbol.asyncDispose>;

/**
 * Starts a redis-server before the tests of the calling file and stops it after them.
 *
 * @returns the server, usable inside the tests
 */
export function useRedisServer(): RedisServer {
  let server: RedisServerProcess | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const current = (): RedisServerProcess => {
    if (server === undefined) throw new Error('redis-server is not started');
    return server;
  };
  return {
    get port() {
      return current().port;
    },
    get url() {
      return current().url;
    },
    stop: () => current().stop(),
    restart: (downMs, whileDown) => current().restart(downMs, whileDown),
  };
}

/**
 * Resolves once this process's Redis connections have seen a server that just exited go: a short
 * wait, then one more turn of the event loop so that its pending socket events ran.
 *
 * @returns resolves after the wait
 */
export async function connectionsNoticed(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setImmediate(resolve));
}
