/**
 * The cluster demo, one command: three chat processes on one Redis. Alice is connected to the
 * first, Bob to the third; Bob's message reaches Alice through Redis; three jobs go through the
 * Redis queue to whichever process is free. Uses `REDIS_URL`, or starts a throwaway
 * `redis-server` when it is installed.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { createRedisQueueClientTransport } from '@jsonrpc-kit/redis';
import { type RedisServerProcess, startRedisServer } from '@jsonrpc-kit/redis/testing';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import type { ClusterMessage } from './node.js';

const nodeScript = fileURLToPath(new URL('./node.js', import.meta.url));

function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 10 s`)), 10_000);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  let redis: RedisServerProcess | undefined;
  try {
    let redisUrl = process.env.REDIS_URL;
    if (redisUrl === undefined) {
      redis = await startRedisServer().catch((error: Error) => {
        throw new Error(`Set REDIS_URL, or ${error.message}`);
      });
      redisUrl = redis.url;
    }
    const urls = await Promise.all(
      ['a', 'b', 'c'].map((name) => {
        const child = spawn(process.execPath, [nodeScript, redisUrl, name], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
        return firstLine(child, `chat process ${name}`);
      }),
    );
    console.log(`three chat processes: ${urls.join(' ')}`);

    let delivered: (message: ClusterMessage) => void = () => {};
    const received = new Promise<ClusterMessage>((resolve) => (delivered = resolve));
    await using alice = createClient(createWebSocketTransport({ url: urls[0]! }), {
      onNotification: (n) => {
        if (n.method === 'chat.message') delivered(n.params as unknown as ClusterMessage);
      },
    });
    await using bob = createClient(createWebSocketTransport({ url: urls[2]! }));
    await alice.request('rpc.ping').catch(() => undefined); // open Alice's socket first
    await bob.request('chat.send', { from: 'bob', text: 'hello from process c' });
    const message = await received;
    console.log(`alice (on a) got "${message.text}" from ${message.from}, sent via ${message.via}`);

    await using jobs = createClient(
      createRedisQueueClientTransport({ url: redisUrl, queue: 'cluster-jobs' }),
    );
    for (const text of ['one', 'one two', 'one two three']) {
      const answer = await jobs.request<{ words: number; by: string }>('jobs.wordCount', [text]);
      console.log(`job "${text}": ${answer.words} words, by process ${answer.by}`);
    }
  } finally {
    for (const child of children.reverse()) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) =>
        child.exitCode !== null || child.signalCode !== null
          ? undefined
          : new Promise((resolve) => child.once('exit', resolve)),
      ),
    );
    await redis?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`cluster: ${(error as Error)?.message ?? String(error)}`);
  process.exitCode = 1;
});
