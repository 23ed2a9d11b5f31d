// Packs every publishable package and checks the tarball with publint and arethetypeswrong
// (ESM-only profile): what a user installs from npm must have working JS and types.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

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

// The browser client: what an app that calls over HTTP and WebSocket ships, bundled and minified
// by esbuild from the built packages, gzipped. It must not grow without a reason: raise the budget
// in the same change that explains the growth.
const BROWSER_CLIENT_BUDGET = 12 * 1024;
const runtimes = join(root, 'tests', 'runtimes');
const esbuildPath = createRequire(join(runtimes, 'package.json')).resolve('esbuild');
const { build } = await import(pathToFileURL(esbuildPath).href);
const bundled = await build({
  stdin: {
    contents: [
      "export { createClient } from '@jsonrpc-kit/client';",
      "export { createHttpTransport } from '@jsonrpc-kit/transport-http';",
      "export { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';",
    ].join('\n'),
    resolveDir: runtimes,
    loader: 'js',
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  logLevel: 'silent',
});
const code = bundled.outputFiles[0].contents;
const gzipped = gzipSync(code, { level: 9 }).length;
const sizes = `${code.length} B minified, ${gzipped} B gzip (budget ${BROWSER_CLIENT_BUDGET} B)`;
if (gzipped > BROWSER_CLIENT_BUDGET) {
  failed++;
  console.log(`FAIL browser client (client + HTTP + WebSocket client): ${sizes}`);
} else {
  console.log(`ok   browser client (client + HTTP + WebSocket client): ${sizes}`);
}

if (failed > 0) {
  console.log(`${failed} pack check(s) failed`);
  process.exit(1);
}
