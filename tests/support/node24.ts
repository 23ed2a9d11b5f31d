/**
 * Test support: the Node 24 binary `tests/runtimes` installs (the `node-<platform>-<arch>` npm
 * package), for tools that need Node >= 22 (the MCP conformance suite, the MCP Inspector) while
 * the tests themselves run on Node 20.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runtimes = join(dirname(fileURLToPath(import.meta.url)), '..', 'runtimes', 'package.json');

/**
 * Finds the Node 24 binary.
 *
 * @returns its path, or `undefined` when `tests/runtimes` has not installed it
 */
export function node24Binary(): string | undefined {
  try {
    const pkg = createRequire(runtimes).resolve(
      `node-${process.platform}-${process.arch}/package.json`,
    );
    const bin = join(dirname(pkg), 'bin', 'node');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}
