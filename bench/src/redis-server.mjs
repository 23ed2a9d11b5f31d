/**
 * A throwaway redis-server for the Redis scenarios: 127.0.0.1, a free port, a temporary directory,
 * no persistence. `undefined` when redis-server is not installed (the scenario then skips).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

function redisBinary() {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'redis-server'))
    .find((path) => existsSync(path));
}

/** Starts one; resolves `{ url, stop }`, or `undefined` without the binary. */
export async function startRedis() {
  const binary = redisBinary();
  if (binary === undefined) return undefined;
  const port = await new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-bench-redis-'));
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'];
  const child = spawn(binary, [...args, '--dir', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
