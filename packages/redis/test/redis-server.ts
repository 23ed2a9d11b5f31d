// A real redis-server for the tests: on 127.0.0.1, a free port and a temporary directory, no
// persistence; one per test file. Without the binary the tests skip and say how to install it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

function findBinary(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'redis-server');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The redis-server binary, when installed. */
export const redisServerBinary: string | undefined = findBinary();

/** Why the Redis tests skip, when they do. */
export const skipReason: string | undefined =
  redisServerBinary === undefined
    ? 'redis-server is not installed: the Redis tests skip (install it: apt-get install -y redis-server)'
    : undefined;
if (skipReason !== undefined) console.warn(skipReason);

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
  /** Stops it and starts it again on the same port. */
  restart(downMs?: number): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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

async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/**
 * Starts a redis-server.
 *
 * @returns the server; throws when the binary is missing (guard with `skipReason`)
 */
export async function startRedisServer(): Promise<RedisServer> {
  const binary = redisServerBinary;
  if (binary === undefined) throw new Error(skipReason);
  const dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const started = spawn(
      binary,
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    child = started;
    await waitUntil(() => answersPing(port), `redis-server on port ${port}`);
  };

  const stopChild = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await stopChild();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart(downMs = 300) {
      await stopChild();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
  };
}

/**
 * Starts a redis-server before the tests of the calling file and stops it after them.
 *
 * @returns the server, usable inside the tests
 */
export function useRedisServer(): RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const current = (): RedisServer => {
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
    restart: (downMs) => current().restart(downMs),
  };
}
