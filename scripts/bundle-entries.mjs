// Runs after `tsc -b` in every package an application imports (all but the conformance CLI):
// each entry of the package's exports map becomes one file, bundled by esbuild from `src`, with
// its source map. Loading one file instead of a few dozen small ES modules cuts the import time of
// a package by about two thirds, which is most of a stdio or HTTP server's cold start. The `.d.ts`
// files and the exports map stay as `tsc` and package.json have them; other packages and
// dependencies stay imports (never bundled in), so an app still has one copy of each package.
// Entries of one package share their common modules through chunks, so module state (a WeakMap, a
// class) exists once per package. A CommonJS file of `src` (`x.cjs`, typed by its `x.d.cts`) is
// copied to dist as it is and stays a file of its own that the bundles import.
//
// Usage, from a package directory: node ../../scripts/bundle-entries.mjs
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleInputsHash, writeBundleStamp } from './bundle-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** `src/x.ts` → `x`, for each entry whose `import` target is `./dist/x.js`. */
const entryPoints = {};
for (const [key, target] of Object.entries(pkg.exports)) {
  if (typeof target !== 'object' || target === null) continue;
  const source = target['@jsonrpc-kit/source'];
  const output = target.import;
  // An entry whose source depends on conditions (transport-http's `.`: `node.ts` on Node) stays
  // as tsc wrote it; its Node target is bundled through its own entry (`./node`).
  if (typeof source !== 'string' || typeof output !== 'string') continue;
  const name = /^\.\/dist\/(.+)\.js$/.exec(output)?.[1];
  if (name === undefined)
    throw new Error(`${pkg.name} ${key}: import target ${output} is not in dist`);
  entryPoints[name] = join(dir, source);
}

// CommonJS files of src, next to the bundles in dist (imported by `src/*.ts` as `./x.cjs`).
const src = join(dir, 'src');
for (const name of readdirSync(src)) {
  if (name.endsWith('.cjs') || name.endsWith('.d.cts'))
    copyFileSync(join(src, name), join(dir, 'dist', name));
}
/** Leaves `./x.cjs` imports as they are: the copied file, found beside the bundle at run time. */
const commonJsFiles = {
  name: 'commonjs-files',
  setup(build) {
    build.onResolve({ filter: /\.cjs$/ }, (args) => {
      if (!args.path.startsWith('./') || dirname(args.importer) !== src) {
        throw new Error(`${args.importer}: import a CommonJS file of src as ./x.cjs from src`);
      }
      return { path: args.path, external: true };
    });
  },
};

// Hashed before bundling: a source saved while esbuild runs makes the stamp stale, not wrong.
const inputs = bundleInputsHash(dir);

// esbuild is a development dependency of the repository's root.
const esbuildPath = createRequire(join(root, 'package.json')).resolve('esbuild');
const { build } = await import(pathToFileURL(esbuildPath).href);
await build({
  entryPoints,
  outdir: join(dir, 'dist'),
  bundle: true,
  splitting: Object.keys(entryPoints).length > 1,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  external: ['node:*'],
  sourcemap: true,
  tsconfig: join(dir, 'tsconfig.json'),
  plugins: [commonJsFiles],
  logLevel: 'warning',
});

// What the bundles were made from, for the test setup (scripts/vitest-global-setup.ts), which
// bundles again a package whose sources changed since.
writeBundleStamp(
  dir,
  inputs,
  Object.keys(entryPoints).map((name) => join('dist', `${name}.js`)),
);
