import { describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisSessionStore } from './session-store.js';

describe.skipIf(skipReason !== undefined)('the Redis session store on a real redis-server', () => {
  const redis = useRedisServer();

  it('records, finds, renews and forgets sessions; expiry and a deleted session stay as they are', async () => {
    await using a = await createRedisSessionStore({ url: redis.url, keyPrefix: 's1:' });
    await using b = await createRedisSessionStore({ url: redis.url, keyPrefix: 's1:' });
    await a.create('one', {}, 60_000);
    // Another process sees it.
    expect(await b.lookup('one')).toEqual({});
    await b.touch('one', 60_000, { streamId: 'g1' });
    expect(await a.lookup('one')).toEqual({ streamId: 'g1' });
    expect(await a.lookup('none')).toBeUndefined();
    // A lookup with a ttl renews the session: it outlives its first ttl.
    await a.create('renewed', {}, 150);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.lookup('renewed', 150)).toEqual({});
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await a.lookup('renewed')).toEqual({});
    // A ttl passes without a touch: gone.
    await a.create('short', {}, 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await b.lookup('short')).toBeUndefined();
    // A touch never brings back a deleted session, with or without a record.
    await b.delete('one');
    await a.touch('one', 60_000);
    await a.touch('one', 60_000, { streamId: 'g2' });
    expect(await b.lookup('one')).toBeUndefined();
    // No expiry for an endless ttl.
    await a.create('forever', {}, Number.POSITIVE_INFINITY);
    expect(await b.lookup('forever')).toEqual({});
  });
});
