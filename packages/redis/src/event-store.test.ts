import { describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisEventStore } from './event-store.js';

describe.skipIf(skipReason !== undefined)('Redis event store on a real redis-server', () => {
  const redis = useRedisServer();

  it('replays, in another process’s store, the events of the same stream after the one seen', async () => {
    await using a = await createRedisEventStore({ url: redis.url, keyPrefix: 'e1:' });
    await using b = await createRedisEventStore({ url: redis.url, keyPrefix: 'e1:' });
    const first = await a.append('s_1', '{"n":1}');
    await a.append('other', '{"x":0}');
    const second = await a.append('s_1', '{"n":2}');
    const third = await a.append('s_1', '{"n":3}');
    expect(first.startsWith('s_1_')).toBe(true);
    const replayed: [string, string][] = [];
    expect(await b.replayAfter(first, (id, message) => void replayed.push([id, message]))).toBe(
      's_1',
    );
    expect(replayed).toEqual([
      [second, '{"n":2}'],
      [third, '{"n":3}'],
    ]);
    expect(await b.replayAfter('s_1_1-0', () => {})).toBeUndefined();
    expect(await b.replayAfter('garbage', () => {})).toBeUndefined();
  });

  it('is bounded by count and by age', async () => {
    await using store = await createRedisEventStore({
      url: redis.url,
      keyPrefix: 'e2:',
      maxEvents: 1,
      maxAge: 300,
    });
    const ids: string[] = [];
    // MAXLEN ~ trims whole nodes: push enough that the first node goes.
    for (let i = 0; i < 300; i++) ids.push(await store.append('s', `{"i":${i}}`));
    expect(await store.replayAfter(ids[0]!, () => {})).toBeUndefined();
    const last = ids[ids.length - 1]!;
    expect(await store.replayAfter(last, () => {})).toBe('s');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await store.replayAfter(last, () => {})).toBeUndefined();
  });
});
