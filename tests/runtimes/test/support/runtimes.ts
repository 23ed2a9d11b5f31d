/**
 * Where the runtimes under test live. Bun, Deno, Node 24 and workerd come from the npm registry
 * as devDependencies (their platform packages carry the binaries; no install script runs);
 * Chromium is a system package.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The runtime tests' package directory. */
export const RUNTIMES_DIR: string = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The repository root. */
export const ROOT_DIR: string = join(RUNTIMES_DIR, '..', '..');
/** The conformance server's command, built by the test build step. */
export const CONFORMANCE_SERVER_JS: string = join(
  ROOT_DIR,
  'examples',
  'conformance-server',
  'dist',
  'server.js',
);

/** A file inside `platformPackage`, resolved the way `wrapper` (its dependent) resolves it. */
function fromPlatformPackage(
  wrapper: string | undefined,
  platformPackage: string,
  file: string,
): string | undefined {
  try {
    const from =
      wrapper === undefined ? require : createRequire(require.resolve(`${wrapper}/package.json`));
    const path = join(dirname(from.resolve(`${platformPackage}/package.json`)), file);
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const arch = process.arch;
const platform = process.platform;

/** The Bun binary from `@oven/bun-<platform>-<arch>`, or `undefined` on other platforms. */
export const BUN: string | undefined = fromPlatformPackage(
  'bun',
  `@oven/bun-${platform}-${arch === 'arm64' ? 'aarch64' : arch}`,
  'bin/bun',
);

/** The Deno binary from `@deno/<platform>-<arch>[-glibc]`. */
export const DENO: string | undefined = fromPlatformPackage(
  'deno',
  `@deno/${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}`,
  'deno',
);

/** Node 24 from `node-<platform>-<arch>` (what the `node@24` package installs). */
export const NODE24: string | undefined = fromPlatformPackage(
  undefined,
  `node-${platform}-${arch}`,
  'bin/node',
);

/** Chromium: `CHROMIUM_PATH`, else the Debian package's binary. */
export const CHROMIUM: string | undefined = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
].find((path): path is string => path !== undefined && path !== '' && existsSync(path));

/** Why a runtime's tests were skipped, printed once per file. */
export function missing(runtime: string, install: string): string {
  return `${runtime} is not installed: ${install}`;
}
