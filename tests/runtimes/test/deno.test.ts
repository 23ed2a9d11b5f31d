/**
 * Deno (the `deno` npm package's binary): the fetch handler on `Deno.serve`, the client with the
 * HTTP and WebSocket transports, and the Node servers (node:http handler, `ws` server) run by
 * Deno. Deno resolves the packages from node_modules by itself.
 */
import { afterAll, describe } from 'vitest';
import { stopAll } from './support/processes.js';
import { fetchRuntimeSuite, nodeServersSuite } from './support/runtime-suites.js';
import { DENO, missing } from './support/runtimes.js';

if (DENO === undefined) console.warn(missing('Deno', 'pnpm install (the `deno` devDependency)'));

afterAll(stopAll);

describe.skipIf(DENO === undefined)('Deno', () => {
  // --sloppy-imports: the fixtures import `./x.js` for `x.ts`, as the project's TypeScript does.
  const deno = () => ({ binary: DENO!, args: ['run', '--allow-all', '--sloppy-imports'] });
  fetchRuntimeSuite(deno);
  nodeServersSuite(deno);
});
