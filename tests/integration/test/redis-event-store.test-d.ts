// The Redis event store fits where the streaming-HTTP handler asks for an event store, though
// neither package depends on the other.
import type { RedisEventStore, RedisFanout, RedisSessionStore } from '@jsonrpc-kit/redis';
import type { SubscriptionFanout } from '@jsonrpc-kit/server';
import type { EventStore, SessionStore } from '@jsonrpc-kit/transport-http';
import { describe, expectTypeOf, it } from 'vitest';

describe('the Redis event store', () => {
  it('is an EventStore of the streaming-HTTP transport', () => {
    expectTypeOf<RedisEventStore>().toExtend<EventStore>();
  });

  it('the Redis session store is a SessionStore of the streaming-HTTP transport', () => {
    expectTypeOf<RedisSessionStore>().toExtend<SessionStore>();
  });

  it('the Redis fan-out is a SubscriptionFanout of the server', () => {
    expectTypeOf<RedisFanout>().toExtend<SubscriptionFanout>();
  });
});
