// Builds every package and example before the tests: tests that spawn child processes run their
// built JavaScript, which must never be older than the source. An incremental `tsc -b` (quick when
// up to date) rewrites the files whose sources changed; it does not redo the esbuild bundles that
// replace the bundled packages' entries (scripts/bundle-entries.mjs), so each package whose bundle
// stamp (scripts/bundle-stamp.mjs) no longer matches its sources is bundled again here.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundlesEntries, bundlesStale } from './bundle-stamp.mjs';

const run = promisify(execFile);

export default async function setup(): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const require = createRequire(import.meta.url);
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.json')], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  const packages = join(root, 'packages');
  const stale = readdirSync(packages)
    .map((name) => join(packages, name))
    .filter((dir) => bundlesEntries(dir) && bundlesStale(dir));
  if (stale.length === 0) return;
  const script = join(root, 'scripts', 'bundle-entries.mjs');
  await Promise.all(
    stale.map(async (dir) => {
      const { stderr } = await run(process.execPath, [script], { cwd: dir, timeout: 120_000 });
      if (stderr !== '') process.stderr.write(stderr);
    }),
  );
  const names = stale.map((dir) => dir.slice(packages.length + 1)).join(', ');
  process.stderr.write(`vitest setup: bundled again (sources changed): ${names}\n`);
}
