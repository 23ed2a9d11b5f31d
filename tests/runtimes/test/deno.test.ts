/**
 * Deno (the `deno` npm package's binary): the fetch handler on `Deno.serve`, the client with the
 * HTTP and WebSocket transports, and the Node servers (node:http handler, `ws` server) run by
 * Deno. Deno resolves the packages from node_modules by itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { useConformanceServer } from './support/conformance.js';
import { run, stopAll } from './support/processes.js';
import { fetchRuntimeSuite, nodeServersSuite } from './support/runtime-suites.js';
import { DENO, missing, RUNTIMES_DIR } from './support/runtimes.js';

if (DENO === undefined) console.warn(missing('Deno', 'pnpm install (the `deno` devDependency)'));

afterAll(stopAll);

describe.skipIf(DENO === undefined)('Deno', () => {
  // --sloppy-imports: the fixtures import `./x.js` for `x.ts`, as the project's TypeScript does.
  const deno = () => ({ binary: DENO!, args: ['run', '--allow-all', '--sloppy-imports'] });
  fetchRuntimeSuite(deno);
  nodeServersSuite(deno);

  describe('the WebSocket client entry with --allow-net alone', () => {
    const conformance = useConformanceServer();

    it('calls the server: no `ws` (which reads the environment) is loaded', async () => {
      const result = await run(
        DENO!,
        [
          'run',
          '--allow-net',
          '--sloppy-imports',
          'test/fixtures/ws-client-only.ts',
          conformance().wsUrl,
        ],
        { cwd: RUNTIMES_DIR },
        40_000,
      );
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('["deno",1]');
      expect(result.code).toBe(0);
    }, 45_000);
  });
});
