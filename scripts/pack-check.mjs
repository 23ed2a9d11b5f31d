// Packs every publishable package and checks the tarballs as a user gets them:
// - publint and arethetypeswrong (ESM-only profile) on each tarball;
// - a fresh strict TypeScript consumer (module/moduleResolution nodenext, `--strict`,
//   `skipLibCheck: false`, only `@types/node` besides the tarballs and their own dependencies)
//   that imports every public entry of every package, so a published `.d.ts` that needs a type
//   package the user does not have (TS7016) fails here;
// - the same for a browser project (moduleResolution bundler, DOM lib, no `@types/node`) importing
//   the entries that run in browsers.
// Everything happens in a temporary directory outside the repository, removed at the end; the
// consumer installs with `--prefer-offline`, from the pnpm store when it is warm.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BROWSER_CLIENT_BUDGET, measureBrowserClient } from './browser-bundle.mjs';

/** Entries that run in browsers: they must type-check without Node's types. */
const BROWSER_ENTRIES = [
  '@jsonrpc-kit/core',
  '@jsonrpc-kit/client',
  '@jsonrpc-kit/server',
  '@jsonrpc-kit/transport-http',
  '@jsonrpc-kit/transport-ws/client',
  '@jsonrpc-kit/extensions',
];

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-pack-'));
const out = join(work, 'tarballs');
mkdirSync(out);
const bin = (name) => join(root, 'node_modules', '.bin', name);
// pnpm pack rewrites `workspace:` ranges to real versions; npm pack would not.
const pnpm = process.env.npm_execpath?.includes('pnpm')
  ? [process.execPath, [process.env.npm_execpath]]
  : ['npx', ['-y', 'pnpm@10.34.9']];
const runPnpm = (args, cwd) =>
  execFileSync(pnpm[0], [...pnpm[1], ...args], { cwd, stdio: 'pipe', encoding: 'utf8' });

let failed = 0;
const fail = (what, error) => {
  failed++;
  const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
  console.log(`FAIL ${what}\n${output === '' ? String(error) : output}`);
};

/** Published packages: name → { tarball, entries (import specifiers), peer dependencies }. */
const packed = new Map();
try {
  for (const dir of readdirSync(join(root, 'packages'))) {
    const cwd = join(root, 'packages', dir);
    const pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
    if (pkg.private) continue;
    const before = new Set(readdirSync(out));
    runPnpm(['pack', '--pack-destination', out], cwd);
    const tarball = join(
      out,
      readdirSync(out).find((f) => !before.has(f)),
    );
    const entries = Object.keys(pkg.exports)
      .filter((key) => !key.endsWith('.json'))
      .map((key) => (key === '.' ? pkg.name : `${pkg.name}${key.slice(1)}`));
    packed.set(pkg.name, { tarball, entries, peers: pkg.peerDependencies ?? {} });
    for (const [tool, args] of [
      ['publint', ['--strict', tarball]],
      ['attw', [tarball, '--profile', 'esm-only', '--format', 'table-flipped']],
    ]) {
      try {
        execFileSync(bin(tool), args, { stdio: 'pipe' });
        console.log(`ok   ${tool} ${pkg.name}`);
      } catch (error) {
        fail(`${tool} ${pkg.name}`, error);
      }
    }
  }
  try {
    checkConsumer();
    console.log(`ok   strict consumers, Node and browser (${packed.size} packages)`);
  } catch (error) {
    fail('strict consumer: tsc --noEmit --strict on the installed tarballs', error);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
// The browser client: what an app that calls over HTTP and WebSocket ships. It must not grow
// without a reason: raise the budget in the same change that explains the growth.
const { minified, gzipped } = await measureBrowserClient();
const sizes = `${minified} B minified, ${gzipped} B gzip (budget ${BROWSER_CLIENT_BUDGET} B)`;
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

/** Writes a module importing `specifiers` and the tsconfig that checks it. */
function writeProject(app, name, specifiers, compilerOptions) {
  writeFileSync(
    join(app, `${name}.ts`),
    `${specifiers.map((s, i) => `import * as entry${i} from '${s}';`).join('\n')}\n` +
      `export const entries: readonly object[] = [${specifiers.map((_, i) => `entry${i}`).join(', ')}];\n`,
  );
  const base = { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };
  writeFileSync(
    join(app, `tsconfig.${name}.json`),
    JSON.stringify(
      {
        compilerOptions: { ...base, skipLibCheck: false, noEmit: true, ...compilerOptions },
        files: [`${name}.ts`],
      },
      null,
      2,
    ),
  );
}

/** Installs every tarball into a fresh project and type-checks an import of every entry. */
function checkConsumer() {
  const app = join(work, 'consumer');
  mkdirSync(app);
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const file = (name) => `file:${packed.get(name).tarball}`;
  const dependencies = { '@types/node': rootPkg.devDependencies['@types/node'] };
  const overrides = {};
  for (const [name, { peers }] of packed) {
    dependencies[name] = file(name);
    overrides[name] = file(name);
    Object.assign(dependencies, peers);
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      { name: 'consumer', private: true, type: 'module', dependencies, pnpm: { overrides } },
      null,
      2,
    ),
  );
  const specifiers = [...packed.values()].flatMap(({ entries }) => entries);
  writeProject(app, 'node', specifiers, {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
  });
  writeProject(app, 'browser', BROWSER_ENTRIES, {
    target: 'es2022',
    lib: ['es2022', 'dom'],
    module: 'esnext',
    moduleResolution: 'bundler',
    types: [],
  });
  runPnpm(
    ['install', '--prefer-offline', '--ignore-scripts', '--config.confirmModulesPurge=false'],
    app,
  );
  const require = createRequire(import.meta.url);
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  for (const name of ['node', 'browser']) {
    try {
      execFileSync(process.execPath, [tsc, '-p', join(app, `tsconfig.${name}.json`)], {
        cwd: app,
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (error) {
      error.stdout = `${name} project:\n${error.stdout ?? ''}`;
      throw error;
    }
  }
}
