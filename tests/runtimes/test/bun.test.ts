/**
 * Bun (the `bun` npm package's binary): the fetch handler on `Bun.serve`, the client with the
 * HTTP and WebSocket transports, and the Node servers (node:http handler, `ws` server) run by Bun.
 */
import { afterAll, describe } from 'vitest';
import { stopAll } from './support/processes.js';
import { fetchRuntimeSuite, nodeServersSuite } from './support/runtime-suites.js';
import { BUN, missing } from './support/runtimes.js';

if (BUN === undefined) console.warn(missing('Bun', 'pnpm install (the `bun` devDependency)'));

afterAll(stopAll);

describe.skipIf(BUN === undefined)('Bun', () => {
  const bun = () => ({ binary: BUN!, args: ['run'] });
  fetchRuntimeSuite(bun);
  nodeServersSuite(bun);
});
