/**
 * Node 24 (the `node-<platform>-<arch>` devDependency) beside the Node 20 that runs `pnpm test`:
 * a smoke subset of the suite on Node 24 (`pnpm test:node24` runs all of it).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, stopAll } from './support/processes.js';
import { missing, NODE24, ROOT_DIR, RUNTIMES_DIR } from './support/runtimes.js';

if (NODE24 === undefined) console.warn(missing('Node 24', 'pnpm install on linux-x64'));

/** Core, the specification's examples, and the client over HTTP and WebSocket end to end. */
const SMOKE = [
  'packages/core/src',
  'packages/server/src/spec.test.ts',
  'tests/integration/test/http-e2e.test.ts',
  'tests/integration/test/ws-e2e.test.ts',
];

afterAll(stopAll);

describe.skipIf(NODE24 === undefined)('Node 24', () => {
  it('passes a smoke subset of the suite', async () => {
    const result = await run(
      process.execPath,
      [join(RUNTIMES_DIR, 'node24.mjs'), ...SMOKE],
      { cwd: ROOT_DIR },
      150_000,
    );
    const output = result.stdout + result.stderr;
    expect(output).toContain('vitest on Node v24.');
    expect(output).toMatch(/Tests\s+\S*\d+ passed/);
    expect(output).not.toMatch(/\d+ failed/);
    expect(result.code, output.slice(-3_000)).toBe(0);
  }, 160_000);
});
