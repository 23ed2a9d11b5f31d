import { createClient } from '@jsonrpc-kit/client';
import { createServer, createSubscriptions, type SubscriptionFanout } from '@jsonrpc-kit/server';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import { afterEach, describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisFanout, type RedisFanout } from './fanout.js';

/** Counts what crosses Redis for one process: publishes sent, item texts received. */
function counted(fanout: RedisFanout): SubscriptionFanout & { sent: number; received: number } {
  const counts = {
    sent: 0,
    received: 0,
    publishText(topic: string, text: string) {
      counts.sent++;
      return fanout.publishText(topic, text);
    },
    subscribeText(topic: string, listener: (text: string) => void) {
      return fanout.subscribeText(topic, (text) => {
        counts.received++;
        listener(text);
      });
    },
  };
  return counts;
}

describe.skipIf(skipReason !== undefined)('subscriptions with a Redis fan-out', () => {
  const redis = useRedisServer();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** One server process: its own fan-out connections, subscriptions and WebSocket server. */
  async function serverProcess(prefix: string) {
    const fanout = await createRedisFanout({ url: redis.url, channelPrefix: prefix });
    const wire = counted(fanout);
    const server = createServer();
    const subscriptions = createSubscriptions(server, { fanout: wire });
    subscriptions.subscription('news');
    const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
    await wss.ready;
    cleanups.push(
      () => fanout.close(),
      () => subscriptions.close(),
      () => wss.close(),
    );
    return { wire, subscriptions, url: `ws://127.0.0.1:${wss.port}/` };
  }

  async function subscriber(url: string) {
    const client = createClient(createWebSocketTransport({ url }));
    cleanups.push(() => client.close());
    const items: unknown[] = [];
    const subscription = client.subscribe('news', undefined, { onItem: (i) => items.push(i) });
    await subscription.ready;
    return items;
  }

  it('a publish on one server reaches the WebSocket subscribers of both, serialized once, received once per process', async () => {
    const a = await serverProcess('p1:');
    const b = await serverProcess('p1:');
    const lists = await Promise.all([a.url, a.url, b.url, b.url].map(subscriber));
    let serialized = 0;
    const item = {
      toJSON() {
        serialized++;
        return { title: 'hello' };
      },
    };
    // Two of this process's subscribers will get it, through Redis as everyone else's.
    expect(a.subscriptions.publish('news', item)).toBe(2);
    await expect
      .poll(() => lists.map((list) => list.length), { timeout: 5000 })
      .toEqual([1, 1, 1, 1]);
    for (const list of lists) expect(list).toEqual([{ title: 'hello' }]);
    expect(serialized).toBe(1);
    expect([a.wire.sent, b.wire.sent]).toEqual([1, 0]);
    // One text per process, however many subscribers it has.
    expect([a.wire.received, b.wire.received]).toEqual([1, 1]);
  });

  it('an item published by any process on the topic (no server there) reaches every subscriber; a filter is refused', async () => {
    const a = await serverProcess('p2:');
    const b = await serverProcess('p2:');
    const lists = await Promise.all([a.url, b.url].map(subscriber));
    await using worker = await createRedisFanout({ url: redis.url, channelPrefix: 'p2:' });
    await worker.publish('news', { n: 1 });
    await expect.poll(() => lists, { timeout: 5000 }).toEqual([[{ n: 1 }], [{ n: 1 }]]);
    expect(() => b.subscriptions.publish('news', { n: 2 }, () => true)).toThrow(TypeError);
  });

  it('a subscription declared on no subscriber of this process still publishes to the others', async () => {
    const a = await serverProcess('p3:');
    const b = await serverProcess('p3:');
    const [onB] = await Promise.all([b.url].map(subscriber));
    expect(a.subscriptions.publish('news', 'x')).toBe(0);
    await expect.poll(() => onB, { timeout: 5000 }).toEqual(['x']);
    expect(a.wire.received).toBe(0);
  });

  it('after a redis-server restart, publishes reach the other process again; nothing hangs', {
    timeout: 30_000,
  }, async () => {
    const a = await serverProcess('p4:');
    const b = await serverProcess('p4:');
    const [onB] = await Promise.all([b.url].map(subscriber));
    a.subscriptions.publish('news', 1);
    await expect.poll(() => onB, { timeout: 5000 }).toEqual([1]);
    await redis.restart(200);
    await expect
      .poll(
        () => {
          a.subscriptions.publish('news', 2);
          return onB!.includes(2);
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(true);
  });
});
