// The stamp that ties a package's esbuild bundles (scripts/bundle-entries.mjs) to the sources they
// were made from. `tsc -b` rewrites only the files whose sources changed, so a bundled entry
// (`dist/index.js`, made from every module of `src`) would keep the old code of a module that
// changed: the stamp records a hash of everything a bundle is made from, and the vitest global
// setup rebundles a package whose stamp does not match, so that no test runs code older than its
// source.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** Where a package keeps its stamp (dist is the build's output, never committed). */
const STAMP = join('dist', '.bundle-stamp');

/** Files under `dir`, recursively, sorted (a test file never reaches a bundle). */
function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (!/\.test(-d)?\.ts$/.test(entry.name)) files.push(path);
  }
  return files.sort();
}

/**
 * A hash of what the bundles of the package in `dir` are made from: its `src`, package.json (the
 * exports map), tsconfig.json and the bundling script.
 *
 * @param {string} dir - the package's directory
 * @returns {string} the hex digest
 */
export function bundleInputsHash(dir) {
  const hash = createHash('sha256');
  const inputs = [
    ...sourceFiles(join(dir, 'src')),
    join(dir, 'package.json'),
    join(dir, 'tsconfig.json'),
    join(root, 'scripts', 'bundle-entries.mjs'),
  ];
  for (const file of inputs) {
    hash.update(relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Records, after bundling, what the bundles of the package in `dir` were made from.
 *
 * @param {string} dir - the package's directory
 * @param {string} inputs - {@link bundleInputsHash} of the package, taken before bundling
 * @param {readonly string[]} outputs - the bundled entries' files, relative to `dir`
 */
export function writeBundleStamp(dir, inputs, outputs) {
  const stamp = { inputs, outputs };
  writeFileSync(join(dir, STAMP), `${JSON.stringify(stamp)}\n`);
}

/**
 * Whether the bundles of the package in `dir` are older than its sources: there is no stamp, the
 * sources changed since it was written, or `tsc -b` wrote an entry's file after it (its output
 * replaced the bundle).
 *
 * @param {string} dir - the package's directory
 * @returns {boolean} `true` when the package must be bundled again
 */
export function bundlesStale(dir) {
  const path = join(dir, STAMP);
  if (!existsSync(path)) return true;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return true;
  }
  if (stamp.inputs !== bundleInputsHash(dir)) return true;
  const written = statSync(path).mtimeMs;
  for (const output of stamp.outputs) {
    const file = join(dir, output);
    if (!existsSync(file) || statSync(file).mtimeMs > written) return true;
  }
  return false;
}

/**
 * Whether the package in `dir` bundles its entries (its build script runs bundle-entries.mjs).
 *
 * @param {string} dir - the package's directory
 * @returns {boolean} `true` for a bundled package
 */
export function bundlesEntries(dir) {
  const path = join(dir, 'package.json');
  if (!existsSync(path)) return false;
  const build = JSON.parse(readFileSync(path, 'utf8')).scripts?.build;
  return typeof build === 'string' && build.includes('bundle-entries.mjs');
}
