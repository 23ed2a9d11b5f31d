/**
 * The checks Deno and Bun share: the conformance fetch handler served by the runtime, the client
 * scenario run by the runtime, and the Node servers (node:http handler, `ws` server) run by it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DuplexPeer,
  openWebSocket,
} from '../../../../examples/conformance-server/test/raw-peers.js';
import { EXPECTED } from '../fixtures/client-scenario.js';
import { ALLOWED_ORIGIN } from '../fixtures/conformance-fetch.js';
import {
  type ConformanceServer,
  startConformanceServer,
  useConformanceServer,
} from './conformance.js';
import { run, type StartOptions, startServer } from './processes.js';
import { RUNTIMES_DIR } from './runtimes.js';
import { httpSuite, webSocketSuite } from './wire-suite.js';

/** How to run a TypeScript file in the runtime under test. */
export interface RuntimeCommand {
  readonly binary: string;
  /** Arguments before the script. */
  readonly args: readonly string[];
  readonly options?: StartOptions;
}

const fixture = (name: string): string => `test/fixtures/${name}`;

/**
 * Declares: the fetch handler served by the runtime (`serve-fetch.ts`), and the client scenario
 * run by the runtime against the conformance server on Node.
 *
 * @param runtime - the runtime's command
 */
export function fetchRuntimeSuite(runtime: () => RuntimeCommand): void {
  describe('the fetch handler served by the runtime', () => {
    let url = '';
    beforeAll(async () => {
      const { binary, args, options } = runtime();
      const server = await startServer(binary, [...args, fixture('serve-fetch.ts')], {
        cwd: RUNTIMES_DIR,
        ...options,
      });
      url = server.line.replace(/^listening /, '');
    }, 30_000);
    httpSuite(() => url, { allowedOrigin: ALLOWED_ORIGIN });
  });

  describe('the client, HTTP and WebSocket, against the conformance server on Node', () => {
    const conformance = useConformanceServer();

    it('calls, errors, batches, auto-batching, a valibot contract, abort and timeout', async () => {
      const { binary, args, options } = runtime();
      const result = await run(
        binary,
        [...args, fixture('run-client.ts'), conformance().httpUrl, conformance().wsUrl],
        { cwd: RUNTIMES_DIR, ...options },
        40_000,
      );
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual(EXPECTED);
    }, 45_000);
  });
}

/**
 * Declares: the conformance server's command (node:http and `ws`) run by the runtime, checked
 * with raw bytes over HTTP and WebSocket.
 *
 * @param runtime - the runtime's command
 */
export function nodeServersSuite(runtime: () => RuntimeCommand): void {
  describe('the conformance server (node:http and ws) run by the runtime', () => {
    let server: ConformanceServer;
    let peer: DuplexPeer | undefined;
    beforeAll(async () => {
      const { binary, args } = runtime();
      server = await startConformanceServer(binary, args);
      peer = await openWebSocket(server.wsUrl);
    }, 30_000);
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
}
