/**
 * The conformance server's command, started under a given runtime (Node by default).
 */

import { afterAll, beforeAll } from 'vitest';
import { type StartedServer, startServer } from './processes.js';
import { CONFORMANCE_SERVER_JS } from './runtimes.js';

/** A running conformance server. */
export interface ConformanceServer extends StartedServer {
  readonly httpUrl: string;
  readonly wsUrl: string;
}

/**
 * Starts `dist/server.js --port 0` and reads its URLs from the first line.
 *
 * @param runtime - the binary that runs it
 * @param runtimeArgs - arguments before the script
 * @returns the running server
 */
export async function startConformanceServer(
  runtime: string = process.execPath,
  runtimeArgs: readonly string[] = [],
): Promise<ConformanceServer> {
  const started = await startServer(runtime, [
    ...runtimeArgs,
    CONFORMANCE_SERVER_JS,
    '--port',
    '0',
  ]);
  const [, httpUrl = '', wsUrl = ''] = started.line.split(' ');
  return { ...started, httpUrl, wsUrl };
}

/**
 * Starts the conformance server on Node before the tests of the enclosing `describe` and stops it
 * after them.
 *
 * @returns the running server, once `beforeAll` has run
 */
export function useConformanceServer(): () => ConformanceServer {
  let server: ConformanceServer | undefined;
  beforeAll(async () => {
    server = await startConformanceServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => server!;
}
