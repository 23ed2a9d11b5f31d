import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import type { JsonRpcNotification } from '@jsonrpc-kit/core';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import { afterAll, describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';

const nodeScript = fileURLToPath(new URL('../test/fixtures/chat-node.mjs', import.meta.url));
const subscriptionsScript = fileURLToPath(
  new URL('../test/fixtures/subscriptions-node.mjs', import.meta.url),
);

function startNode(
  url: string,
  children: ChildProcess[],
  script = nodeScript,
  prefix = 'cluster:',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, url, prefix], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`chat node exited with ${code}`)));
  });
}

describe.skipIf(skipReason !== undefined)('three WebSocket server processes on one Redis', () => {
  const redis = useRedisServer();
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('a subscriber connected to process A receives a publish made on process C', async () => {
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => startNode(redis.url, children)));
    const received: Record<string, JsonRpcNotification[]> = { a: [], b: [] };
    const connect = (url: string, into?: JsonRpcNotification[]) =>
      createClient(createWebSocketTransport({ url }), {
        onNotification: (notification) => void into?.push(notification),
      });
    await using onA = connect(a!, received.a);
    await using onB = connect(b!, received.b);
    await using onC = connect(c!);
    // A round trip on each, so that every socket is open before the publish.
    await expect(
      Promise.all([onA, onB].map((cl) => cl.request('nope').catch(() => 'open'))),
    ).resolves.toEqual(['open', 'open']);
    expect(await onC.request('chat.send', { text: 'hello from C' })).toBe(true);
    await expect.poll(() => received.a!.length + received.b!.length, { timeout: 5000 }).toBe(2);
    for (const list of [received.a!, received.b!]) {
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ method: 'chat.message', params: { text: 'hello from C' } });
    }
  });

  it('subscriptions with the fan-out option: a publish on C reaches subscribers on A, B and C, serialized once, received once per process', async () => {
    const urls = await Promise.all(
      [0, 1, 2].map(() => startNode(redis.url, children, subscriptionsScript, 'subs:')),
    );
    const clients = urls.map((url) => createClient(createWebSocketTransport({ url: url! })));
    const received: unknown[][] = [];
    try {
      // Two subscribers on A, one on B, one on C.
      const subscribers = [0, 0, 1, 2];
      for (const index of subscribers) {
        const items: unknown[] = [];
        received.push(items);
        const subscription = clients[index]!.subscribe('news', undefined, {
          onItem: (item) => items.push(item),
        });
        await subscription.ready;
      }
      // C has one subscriber of its own: that is what publish() counts.
      expect(await clients[2]!.request('news.publish', { text: 'hello from C' })).toBe(1);
      await expect
        .poll(() => received.map((items) => items.length), { timeout: 5000 })
        .toEqual([1, 1, 1, 1]);
      for (const items of received) expect(items).toMatchObject([{ text: 'hello from C' }]);
      const stats = await Promise.all(clients.map((client) => client.request('stats')));
      expect(stats).toEqual([
        { sent: 0, received: 1, serialized: 0 },
        { sent: 0, received: 1, serialized: 0 },
        { sent: 1, received: 1, serialized: 1 },
      ]);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});
