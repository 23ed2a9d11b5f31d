// The bundle stamp that lets the test setup bundle again a package whose sources changed
// (scripts/bundle-stamp.mjs): a bundle older than any of its sources is stale.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bundleInputsHash,
  bundlesEntries,
  bundlesStale,
  writeBundleStamp,
} from '../../../scripts/bundle-stamp.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package with one source file and a bundled entry, stamped as just bundled. */
function bundledPackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-stamp-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ scripts: { build: 'tsc -b && node ../../scripts/bundle-entries.mjs' } }),
  );
  writeFileSync(join(dir, 'tsconfig.json'), '{}');
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'dist', 'index.js'), 'export const a = 1;\n');
  // The entry was written before the stamp.
  const past = new Date(Date.now() - 10_000);
  utimesSync(join(dir, 'dist', 'index.js'), past, past);
  writeBundleStamp(dir, bundleInputsHash(dir), ['dist/index.js']);
  return dir;
}

describe('bundle stamp', () => {
  it('finds a package fresh right after bundling', () => {
    const dir = bundledPackage();
    expect(bundlesEntries(dir)).toBe(true);
    expect(bundlesStale(dir)).toBe(false);
  });

  it('finds it stale when a source changed', () => {
    const dir = bundledPackage();
    writeFileSync(join(dir, 'src', 'index.ts'), 'export const a = 2;\n');
    expect(bundlesStale(dir)).toBe(true);
  });

  it('finds it stale when a source was added', () => {
    const dir = bundledPackage();
    mkdirSync(join(dir, 'src', 'inner'));
    writeFileSync(join(dir, 'src', 'inner', 'b.ts'), 'export const b = 1;\n');
    expect(bundlesStale(dir)).toBe(true);
  });

  it('ignores test files, which no bundle holds', () => {
    const dir = bundledPackage();
    writeFileSync(join(dir, 'src', 'index.test.ts'), 'export {};\n');
    expect(bundlesStale(dir)).toBe(false);
  });

  it('finds it stale when an entry was written after the stamp (tsc replaced the bundle)', () => {
    const dir = bundledPackage();
    const future = new Date(Date.now() + 10_000);
    utimesSync(join(dir, 'dist', 'index.js'), future, future);
    expect(bundlesStale(dir)).toBe(true);
  });

  it('finds it stale without a stamp or an entry', () => {
    const dir = bundledPackage();
    rmSync(join(dir, 'dist', 'index.js'));
    expect(bundlesStale(dir)).toBe(true);
    rmSync(join(dir, 'dist', '.bundle-stamp'));
    expect(bundlesStale(dir)).toBe(true);
  });

  it('tells the bundled packages from the others', () => {
    const dir = bundledPackage();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { build: 'tsc -b' } }));
    expect(bundlesEntries(dir)).toBe(false);
  });
});
