/**
 * Bun (the `bun` npm package's binary): the fetch handler on `Bun.serve`, the client with the
 * HTTP and WebSocket transports, and the Node servers (node:http handler, `ws` server) run by Bun.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DuplexPeer,
  openWebSocket,
} from '../../../examples/conformance-server/test/raw-peers.js';
import { type ConformanceServer, startConformanceServer } from './support/conformance.js';
import { fetchRuntimeSuite } from './support/fetch-runtime.js';
import { stopAll } from './support/processes.js';
import { BUN, missing } from './support/runtimes.js';
import { httpSuite, webSocketSuite } from './support/wire-suite.js';

if (BUN === undefined) console.warn(missing('Bun', 'pnpm install (the `bun` devDependency)'));

afterAll(stopAll);

describe.skipIf(BUN === undefined)('Bun', () => {
  fetchRuntimeSuite(() => ({ binary: BUN!, args: ['run'] }));

  describe('the conformance server (node:http and ws) run by Bun', () => {
    let server: ConformanceServer;
    let peer: DuplexPeer | undefined;
    beforeAll(async () => {
      server = await startConformanceServer(BUN!, ['run']);
      peer = await openWebSocket(server.wsUrl);
    });
    afterAll(async () => {
      await peer?.close();
      await server?.stop();
    });

    it('prints its address first', () => {
      expect(server.line).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\/rpc ws:/);
    });
    httpSuite(() => server.httpUrl);
    webSocketSuite(() => peer!);
  });
});
