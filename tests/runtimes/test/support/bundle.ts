/**
 * Bundles a fixture with esbuild, the way an application bundles the kit for a browser or a
 * worker: the packages' built `dist`, resolved through their exports maps.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { RUNTIMES_DIR } from './runtimes.js';

/** Options of {@link bundle}. */
export interface BundleOptions {
  /** Export conditions besides `import` and `default`. */
  readonly conditions: readonly string[];
  readonly minify?: boolean;
}

/**
 * Bundles `test/fixtures/<name>` into one ES module.
 *
 * @param name - the fixture's file name
 * @param options - conditions, minification
 * @returns the bundled code
 */
export async function bundle(name: string, options: BundleOptions): Promise<string> {
  const result = await build({
    entryPoints: [join(RUNTIMES_DIR, 'test', 'fixtures', name)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: [...options.conditions],
    minify: options.minify ?? false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
