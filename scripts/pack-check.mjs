// The release flow, dry, end to end: in a copy of the repository (built packages included) it
// applies the pending changesets (`changeset version`), installs, runs `pnpm -r publish --dry-run`,
// then packs every publishable package and checks each tarball: LICENSE, README and the manifest's
// metadata are there, no `workspace:` range leaks and internal ranges accept the versions released
// with it, and publint and arethetypeswrong (ESM-only profile) find working JS and types.
// Then a fresh strict TypeScript consumer (module/moduleResolution nodenext, `--strict`,
// `skipLibCheck: false`, only `@types/node` besides the tarballs and their own dependencies) installs
// the tarballs and imports every public entry, so a published `.d.ts` that needs a type package the
// user does not have (TS7016) fails here; the same for a browser project (moduleResolution bundler,
// DOM lib, no `@types/node`) importing the entries that run in browsers. Last, the browser client's
// gzip size is checked against its budget.
// Run it after `pnpm build`; nothing is versioned, committed or published in the repository itself.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

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
const bin = (name) => join(root, 'node_modules', '.bin', name);
// pnpm publish and pnpm pack rewrite `workspace:` ranges to real versions; npm would not.
const [pnpmCmd, pnpmArgs] = process.env.npm_execpath?.includes('pnpm')
  ? [process.execPath, [process.env.npm_execpath]]
  : ['npx', ['-y', 'pnpm@10.34.9']];
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: 'pipe', encoding: 'utf8' });
const pnpm = (args, cwd) => run(pnpmCmd, [...pnpmArgs, ...args], cwd);
const skipped = new Set(['node_modules', '.git', '.turbo', '.pack', 'coverage']);
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

const work = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-release-'));
const copy = join(work, 'repo');
const out = join(work, 'tarballs');
let failed = 0;
const fail = (what, detail) => {
  failed++;
  console.log(`FAIL ${what}\n${detail}`);
};
const step = (what, fn) => {
  try {
    fn();
    console.log(`ok   ${what}`);
  } catch (error) {
    fail(what, `${error.stdout ?? ''}${error.stderr ?? ''}${error.stdout ? '' : error.message}`);
  }
};

try {
  cpSync(root, copy, {
    recursive: true,
    filter: (src) =>
      !relative(root, src)
        .split(sep)
        .some((part) => skipped.has(part)),
  });
  mkdirSync(out);
  step('changeset version', () =>
    run(process.execPath, [join(root, 'node_modules/@changesets/cli/bin.js'), 'version'], copy),
  );
  step('pnpm install (versioned copy)', () =>
    pnpm(['install', '--prefer-offline', '--frozen-lockfile', '--ignore-scripts'], copy),
  );
  step('pnpm -r publish --dry-run', () =>
    pnpm(['-r', 'publish', '--dry-run', '--no-git-checks'], copy),
  );

  const packages = readdirSync(join(copy, 'packages'))
    .map((dir) => ({ dir, cwd: join(copy, 'packages', dir) }))
    .map((p) => ({ ...p, manifest: readJson(join(p.cwd, 'package.json')) }))
    .filter((p) => !p.manifest.private);
  /** Published packages: name → { tarball, entries (import specifiers), peer dependencies }. */
  const packed = new Map();
  const released = new Map(packages.map((p) => [p.manifest.name, p.manifest.version]));

  for (const { dir, cwd, manifest } of packages) {
    const before = new Set(readdirSync(out));
    let tarball;
    step(`pnpm pack ${manifest.name}`, () => {
      pnpm(['pack', '--pack-destination', out], cwd);
      tarball = join(
        out,
        readdirSync(out).find((f) => !before.has(f)),
      );
    });
    if (!tarball) continue;
    const entries = Object.keys(manifest.exports)
      .filter((key) => !key.endsWith('.json'))
      .map((key) => (key === '.' ? manifest.name : `${manifest.name}${key.slice(1)}`));
    packed.set(manifest.name, { tarball, entries, peers: manifest.peerDependencies ?? {} });
    step(`tarball ${manifest.name}@${manifest.version} (${basename(tarball)})`, () => {
      const problems = checkTarball(tarball, dir, released);
      if (problems.length > 0) throw new Error(problems.map((p) => `  - ${p}`).join('\n'));
    });
    for (const [tool, args] of [
      ['publint', ['--strict', tarball]],
      ['attw', [tarball, '--profile', 'esm-only', '--format', 'table-flipped']],
    ]) {
      step(`${tool} ${manifest.name}`, () => run(bin(tool), args, root));
    }
  }
  step(`strict consumers, Node and browser (${packed.size} packages)`, () => checkConsumer(packed));
} finally {
  rmSync(work, { recursive: true, force: true });
}

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

/** What is wrong with one packed package, as sentences (none when it is fit to publish). */
function checkTarball(tarball, dir, released) {
  const problems = [];
  const files = new Set(run('tar', ['-tzf', tarball]).split('\n').filter(Boolean));
  for (const file of ['package/LICENSE', 'package/README.md', 'package/package.json']) {
    if (!files.has(file)) problems.push(`${file.slice('package/'.length)} is not in the tarball`);
  }
  const manifest = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json']));
  if (manifest.version === '0.0.0') {
    problems.push('version 0.0.0 after `changeset version`: the package has no changeset');
  }
  for (const field of ['description', 'license', 'author', 'homepage', 'bugs', 'keywords']) {
    if (!manifest[field]) problems.push(`no "${field}" in package.json`);
  }
  if (manifest.repository?.directory !== `packages/${dir}`) {
    problems.push(`"repository.directory" is not "packages/${dir}"`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${name} leaks "${range}"`);
      const version = released.get(name);
      if (version && !satisfiesCaret(version, range)) {
        problems.push(`${field}.${name} is "${range}", which does not accept ${version}`);
      }
    }
  }
  return problems;
}

/** Whether `version` is accepted by `range`, for the exact and caret ranges pnpm writes. */
function satisfiesCaret(version, range) {
  const exact = range.replace(/^\^/, '');
  if (!/^\d+\.\d+\.\d+$/.test(exact)) return false;
  if (!range.startsWith('^')) return exact === version;
  const [a, b] = [exact, version].map((v) => v.split('.').map(Number));
  const cmp = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  if (cmp > 0) return false;
  // ^0.0.z pins z, ^0.y.z pins y, ^x.y.z pins x.
  if (a[0] > 0) return a[0] === b[0];
  if (a[1] > 0) return b[0] === 0 && a[1] === b[1];
  return b[0] === 0 && b[1] === 0 && a[2] === b[2];
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
function checkConsumer(packed) {
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
  pnpm(
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
