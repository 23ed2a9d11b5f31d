import { describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisTaskStore } from './task-store.js';

interface Task {
  readonly taskId: string;
  readonly ttlMs: number;
  readonly status: string;
  readonly count: number;
}

describe.skipIf(skipReason !== undefined)('the Redis task store on a real redis-server', () => {
  const redis = useRedisServer();

  it('stores a task one process made for another to read, once, until its ttl passes', async () => {
    await using a = await createRedisTaskStore<Task>({ url: redis.url, keyPrefix: 't1:' });
    await using b = await createRedisTaskStore<Task>({ url: redis.url, keyPrefix: 't1:' });
    await a.create({ taskId: 'one', ttlMs: 60_000, status: 'working', count: 0 });
    expect(await b.get('one')).toEqual({
      taskId: 'one',
      ttlMs: 60_000,
      status: 'working',
      count: 0,
    });
    expect(await b.get('none')).toBeUndefined();
    await expect(
      b.create({ taskId: 'one', ttlMs: 60_000, status: 'completed', count: 9 }),
    ).rejects.toThrow(/already/);
    expect((await a.get('one'))?.status).toBe('working');
    await a.create({ taskId: 'short', ttlMs: 60, status: 'working', count: 0 });
    // An update keeps the expiry: the task still goes when its ttl passes.
    await b.update('short', (t) => ({ ...t, status: 'completed' }));
    expect((await a.get('short'))?.status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await b.get('short')).toBeUndefined();
    expect(await b.update('short', (t) => t)).toBeUndefined();
  });

  it('loses no change when two processes update one task at once', async () => {
    await using a = await createRedisTaskStore<Task>({ url: redis.url, keyPrefix: 't2:' });
    await using b = await createRedisTaskStore<Task>({ url: redis.url, keyPrefix: 't2:' });
    await a.create({ taskId: 'counted', ttlMs: 60_000, status: 'working', count: 0 });
    const bump = (t: Task): Task => ({ ...t, count: t.count + 1 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).update('counted', bump)),
    );
    expect((await a.get('counted'))?.count).toBe(20);
    // A change that returns undefined writes nothing.
    expect(await b.update('counted', () => undefined)).toMatchObject({ count: 20 });
  });
});
