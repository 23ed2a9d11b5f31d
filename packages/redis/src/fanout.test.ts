import { spawnSync } from 'node:child_process';
import { LocalErrorCode } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { connectionsNoticed, skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisFanout } from './fanout.js';
import { findRedisServer } from './testing.js';

/** The major version of the installed redis-server (0 when unknown). */
function redisMajor(): number {
  const binary = findRedisServer();
  if (binary === undefined) return 0;
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return Number(/v=(\d+)/.exec(out)?.[1] ?? 0);
}

/** Skips the test, saying why, when the installed redis-server has no sharded pub/sub. */
function skipWithoutShardedPubSub(ctx: { skip(note: string): void }): void {
  const major = redisMajor();
  if (major < 7) ctx.skip(`sharded pub/sub needs Redis >= 7; this redis-server is ${major}`);
}

describe.skipIf(skipReason !== undefined)('fan-out on a real redis-server', () => {
  const redis = useRedisServer();
  const shardedFanout = (channelPrefix: string) =>
    createRedisFanout({ url: redis.url, channelPrefix, sharded: true });

  it('delivers a publish to every subscriber of every fan-out, parsed once per fan-out', async () => {
    await using a = await createRedisFanout({ url: redis.url, channelPrefix: 't1:' });
    await using b = await createRedisFanout({ url: redis.url, channelPrefix: 't1:' });
    const got: [string, unknown][] = [];
    const items = new Set<unknown>();
    await a.subscribe('news', (item) => void got.push(['a1', item]));
    await a.subscribe('news', (item, text) => {
      got.push(['a2', text]);
      items.add(item);
    });
    const stop = await b.subscribe('news', (item) => {
      got.push(['b', item]);
      items.add(item);
    });
    await b.publish('news', { n: 1 });
    await expect.poll(() => got.length, { timeout: 2000 }).toBe(3);
    expect(got).toEqual(
      expect.arrayContaining([
        ['a1', { n: 1 }],
        ['a2', '{"n":1}'],
        ['b', { n: 1 }],
      ]),
    );
    // One parse per process: the two listeners of `a` share one object.
    expect(items.size).toBe(2);
    await stop();
    await a.publish('news', { n: 2 });
    await expect.poll(() => got.length, { timeout: 2000 }).toBe(5);
    expect(
      got
        .slice(3)
        .map(([who]) => who)
        .sort(),
    ).toEqual(['a1', 'a2']);
  });

  it('survives a redis-server restart: subscriptions come back, publishes made meanwhile go out', {
    timeout: 30_000,
  }, async () => {
    await using a = await createRedisFanout({ url: redis.url, channelPrefix: 't2:' });
    await using b = await createRedisFanout({ url: redis.url, channelPrefix: 't2:' });
    const got: unknown[] = [];
    await a.subscribe('ticks', (item) => void got.push(item));
    await b.publish('ticks', 1);
    await expect.poll(() => got, { timeout: 2000 }).toEqual([1]);

    // Published while Redis is down: queued, then sent in order.
    let duringOutage: Promise<void> | undefined;
    await redis.restart(500, async () => {
      await connectionsNoticed();
      duringOutage = b.publish('ticks', 2);
      expect(b.queued).toBe(1);
    });
    await duringOutage;
    // The queued publish may have gone out before `a` resubscribed; afterwards every one arrives.
    await expect
      .poll(
        async () => {
          await b.publish('ticks', 3);
          return got.includes(3);
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(true);
  });

  it('fails a publish clearly when Redis is down and the outage queue is full', async () => {
    const fanout = await createRedisFanout({
      url: redis.url,
      maxQueue: 1,
      channelPrefix: 't3:',
    });
    let first: Promise<void> | undefined;
    await redis.restart(500, async () => {
      await connectionsNoticed();
      first = fanout.publish('x', 1);
      await expect(fanout.publish('x', 2)).rejects.toMatchObject({
        code: LocalErrorCode.Transport,
      });
    });
    await expect(first).resolves.toBeUndefined();
    await fanout.close();
    await expect(fanout.publish('x', 3)).rejects.toMatchObject({
      code: LocalErrorCode.ConnectionClosed,
    });
  });

  it('sharded pub/sub (SPUBLISH/SSUBSCRIBE): delivered to sharded subscribers, not to plain ones', async (ctx) => {
    skipWithoutShardedPubSub(ctx);
    await using a = await shardedFanout('t4:');
    await using b = await shardedFanout('t4:');
    await using plain = await createRedisFanout({ url: redis.url, channelPrefix: 't4:' });
    expect(a.sharded).toBe(true);
    const got: unknown[] = [];
    const texts: string[] = [];
    const heardPlain: unknown[] = [];
    await a.subscribe('news', (item) => void got.push(item));
    await a.subscribeText('news', (text) => void texts.push(text));
    await plain.subscribe('news', (item) => void heardPlain.push(item));
    await b.publish('news', { n: 1 });
    await b.publishText('news', '{"n":2}');
    await expect.poll(() => got, { timeout: 2000 }).toEqual([{ n: 1 }, { n: 2 }]);
    expect(texts).toEqual(['{"n":1}', '{"n":2}']);
    // A plain publish reaches plain subscribers only: the two kinds are separate channels.
    await plain.publish('news', { n: 3 });
    await expect.poll(() => heardPlain, { timeout: 2000 }).toEqual([{ n: 3 }]);
    expect(got).toHaveLength(2);
  });

  it('sharded subscriptions come back after a redis-server restart', {
    timeout: 30_000,
  }, async (ctx) => {
    skipWithoutShardedPubSub(ctx);
    await using a = await shardedFanout('t5:');
    await using b = await shardedFanout('t5:');
    const got: unknown[] = [];
    await a.subscribe('ticks', (item) => void got.push(item));
    await redis.restart(200);
    await expect
      .poll(
        async () => {
          await b.publish('ticks', 'after');
          return got.includes('after');
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(true);
  });
});
