import { describe, expect, it } from 'vitest';
import {
  createRedisEventStore,
  createRedisFanout,
  createRedisQueueClientTransport,
  createRedisQueueWorkerTransport,
  createRedisSessionStore,
  createRedisTaskStore,
} from './index.js';

/** Options as a JavaScript caller passes them: names the types do not have. */
const loose = (options: Record<string, unknown>): never => options as never;

// Refused before any connection is made: no redis-server is needed, and the port is closed.
const url = 'redis://127.0.0.1:1';

describe('unknown option names', () => {
  it('the queue transports refuse them at once, naming the replacement of a renamed one', () => {
    expect(() =>
      createRedisQueueClientTransport(loose({ url, queue: 'q', maxQueueLength: 5 })),
    ).toThrow(
      new TypeError(
        'createRedisQueueClientTransport: unknown option "maxQueueLength" (renamed: use maxBacklog)',
      ),
    );
    expect(() =>
      createRedisQueueClientTransport(loose({ url, queue: 'q', maxQueuedSends: 5 })),
    ).toThrow(
      new TypeError(
        'createRedisQueueClientTransport: unknown option "maxQueuedSends" (renamed: use maxQueue)',
      ),
    );
    expect(() =>
      createRedisQueueWorkerTransport(loose({ url, queue: 'q', visibility: 5 })),
    ).toThrow(new TypeError('createRedisQueueWorkerTransport: unknown option "visibility"'));
  });

  it('the fan-out and the stores reject before they connect', async () => {
    await expect(createRedisFanout(loose({ url, maxQueuedPublishes: 5 }))).rejects.toThrow(
      new TypeError(
        'createRedisFanout: unknown option "maxQueuedPublishes" (renamed: use maxQueue)',
      ),
    );
    await expect(createRedisSessionStore(loose({ url, prefix: 'x:' }))).rejects.toThrow(
      new TypeError('createRedisSessionStore: unknown option "prefix"'),
    );
    await expect(createRedisEventStore(loose({ url, maxEvent: 5 }))).rejects.toThrow(
      new TypeError('createRedisEventStore: unknown option "maxEvent"'),
    );
    await expect(createRedisTaskStore(loose({ url, ttl: 5 }))).rejects.toThrow(
      new TypeError('createRedisTaskStore: unknown option "ttl"'),
    );
  });
});
