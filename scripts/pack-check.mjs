// Packs every publishable package and checks the tarball with publint and arethetypeswrong
// (ESM-only profile): what a user installs from npm must have working JS and types.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.pack');
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
const bin = (name) => join(root, 'node_modules', '.bin', name);
let failed = 0;
for (const dir of readdirSync(join(root, 'packages'))) {
  const cwd = join(root, 'packages', dir);
  const pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
  if (pkg.private) continue;
  const before = new Set(readdirSync(out));
  // pnpm pack rewrites `workspace:` ranges to real versions; npm pack would not.
  const pnpm = process.env.npm_execpath?.includes('pnpm')
    ? [process.execPath, [process.env.npm_execpath]]
    : ['npx', ['-y', 'pnpm@10.34.9']];
  execFileSync(pnpm[0], [...pnpm[1], 'pack', '--pack-destination', out], { cwd, stdio: 'pipe' });
  const tarball = join(
    out,
    readdirSync(out).find((f) => !before.has(f)),
  );
  for (const [tool, args] of [
    ['publint', ['--strict', tarball]],
    ['attw', [tarball, '--profile', 'esm-only', '--format', 'table-flipped']],
  ]) {
    try {
      execFileSync(bin(tool), args, { stdio: 'pipe' });
      console.log(`ok   ${tool} ${pkg.name}`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${tool} ${pkg.name}\n${error.stdout}${error.stderr}`);
    }
  }
}
rmSync(out, { recursive: true, force: true });
if (failed > 0) {
  console.log(`${failed} pack check(s) failed`);
  process.exit(1);
}
