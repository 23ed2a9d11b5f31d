import { describe, expect, it } from 'vitest';
import { connectionsNoticed, skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisFanout } from './fanout.js';

describe.skipIf(skipReason !== undefined)('fan-out through redis-server restarts', () => {
  const redis = useRedisServer();

  it('publishes held during an outage reach the subscribers once Redis is back, this process’s own included', {
    timeout: 60_000,
  }, async () => {
    await using fanout = await createRedisFanout({ url: redis.url, channelPrefix: 'held:' });
    const got: unknown[] = [];
    await fanout.subscribe('ticks', (item) => void got.push(item));
    await fanout.publish('ticks', 0);
    await expect.poll(() => got, { timeout: 2000 }).toEqual([0]);
    // Several restarts (stop, then start on the same port): each time, what was published while
    // Redis was down goes out after the subscription is back, so it arrives.
    for (let round = 1; round <= 4; round++) {
      let held: Promise<void>[] = [];
      await redis.restart(400, async () => {
        await connectionsNoticed();
        held = [fanout.publish('ticks', `${round}a`), fanout.publish('ticks', `${round}b`)];
        expect(fanout.queued).toBe(2);
      });
      await Promise.all(held);
      await expect.poll(() => got.slice(-2), { timeout: 2000 }).toEqual([`${round}a`, `${round}b`]);
    }
  });
});
