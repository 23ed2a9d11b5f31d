// Builds every package and example once before the tests (incremental `tsc -b`, quick when up to
// date): tests that spawn child processes run their built JavaScript.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const require = createRequire(import.meta.url);
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.json')], {
    stdio: 'inherit',
    timeout: 300_000,
  });
}
