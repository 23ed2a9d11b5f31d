/**
 * The port picker of the tests that restart a server on its port (tests/support/restart-port.ts).
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralStart, RESTARTABLE_PORTS, restartablePort } from '../../support/restart-port.js';

function listen(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

describe('restartablePort', () => {
  it.skipIf(ephemeralStart() === undefined)(
    'picks below the ephemeral range, where listen(0) never lands',
    async () => {
      const start = ephemeralStart()!;
      expect(RESTARTABLE_PORTS.high).toBeLessThanOrEqual(start);
      for (let i = 0; i < 20; i++) {
        const port = await restartablePort();
        expect(port).toBeGreaterThanOrEqual(RESTARTABLE_PORTS.low);
        expect(port).toBeLessThan(start);
        // A port the system picks is an ephemeral one: what the restarting tests used before.
        expect(await listen(0)).toBeGreaterThanOrEqual(start);
      }
    },
  );

  it('hands out a port that is free to listen on', async () => {
    const port = await restartablePort();
    expect(await listen(port)).toBe(port);
  });
});
