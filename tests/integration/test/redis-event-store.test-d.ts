// The Redis event store fits where the streaming-HTTP handler asks for an event store, though
// neither package depends on the other.
import type { TaskRecord, TaskStore } from '@jsonrpc-kit/mcp';
import type {
  RedisEventStore,
  RedisFanout,
  RedisSessionStore,
  RedisTaskStore,
} from '@jsonrpc-kit/redis';
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

  it("the Redis task store, of the mcp package's TaskRecord, is a TaskStore of an MCP server", () => {
    expectTypeOf<RedisTaskStore<TaskRecord>>().toExtend<TaskStore>();
  });
});
