// The Redis event store fits where the streaming-HTTP handler asks for an event store, though
// neither package depends on the other.
import type { RedisEventStore } from '@jsonrpc-kit/redis';
import type { EventStore } from '@jsonrpc-kit/transport-http';
import { describe, expectTypeOf, it } from 'vitest';

describe('the Redis event store', () => {
  it('is an EventStore of the streaming-HTTP transport', () => {
    expectTypeOf<RedisEventStore>().toExtend<EventStore>();
  });
});
