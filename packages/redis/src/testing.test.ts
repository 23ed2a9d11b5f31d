import { connect } from 'node:net';
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

  it('runs whileDown once the old process is gone, and starts again after it, passing on what it threw', {
    timeout: 20_000,
  }, async () => {
    await using redis = await startRedisServer();
    const refused = (): Promise<boolean> =>
      new Promise((resolve) => {
        const socket = connect(redis.port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', () => resolve(true));
      });
    expect(await refused()).toBe(false);
    const seen: boolean[] = [];
    await redis.restart(10, async () => {
      seen.push(await refused());
      await new Promise((resolve) => setTimeout(resolve, 200));
      seen.push(await refused());
    });
    expect(seen).toEqual([true, true]);
    expect(await refused()).toBe(false);
    await expect(
      redis.restart(10, () => {
        throw new Error('acted badly');
      }),
    ).rejects.toThrow('acted badly');
    expect(await refused()).toBe(false);
  });
});
