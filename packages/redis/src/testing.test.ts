import { describe, expect, it } from 'vitest';
import { ephemeralStart } from '../../../tests/support/restart-port.js';
import { skipReason } from '../test/redis-server.js';
import { startRedisServer } from './testing.js';

describe.skipIf(skipReason !== undefined)('startRedisServer', () => {
  // A port the system picks (`listen(0)`) is one of its ephemeral ports, which any outgoing
  // connection or `listen(0)` of the machine may take while a restart keeps the server down.
  it.skipIf(ephemeralStart() === undefined)(
    'listens below the ephemeral range, and comes back on its port after a restart',
    { timeout: 20_000 },
    async () => {
      await using redis = await startRedisServer();
      expect(redis.port).toBeGreaterThanOrEqual(1024);
      expect(redis.port).toBeLessThan(ephemeralStart()!);
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      await redis.restart(50);
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    },
  );
});
