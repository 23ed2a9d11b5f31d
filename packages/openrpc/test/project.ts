/**
 * A throwaway TypeScript project for generated modules: strict compiler options, the workspace's
 * valibot and packages linked in, compiled with the repository's `tsc` (TypeScript 7) to
 * JavaScript that tests then import. Test support only.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root folder. */
export const root: string = fileURLToPath(new URL('../../../', import.meta.url));

/** A compiled project. */
export interface Project {
  /** Its folder. */
  readonly dir: string;
  /** Type errors by file name (`trees.ts`), as `line:column TSxxxx message`. */
  readonly diagnostics: ReadonlyMap<string, readonly string[]>;
  /** The whole compiler output. */
  readonly output: string;
  /** Imports a compiled module (`trees.ts` → `out/trees.js`). */
  readonly load: (file: string) => Promise<Record<string, unknown>>;
  /** Removes the folder. */
  readonly remove: () => void;
}

/**
 * Writes the files into a fresh project and compiles it.
 *
 * @param files - file names (in `src/`) to their text
 * @returns the project, compiled
 */
export async function compileProject(files: Record<string, string>): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-openrpc-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@jsonrpc-kit'), { recursive: true });
  symlinkSync(join(root, 'node_modules', 'valibot'), join(modules, 'valibot'), 'dir');
  for (const name of ['core', 'server', 'client', 'extensions', 'transport-http']) {
    symlinkSync(join(root, 'packages', name), join(modules, '@jsonrpc-kit', name), 'dir');
  }
  mkdirSync(join(dir, 'src'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'src', name), text);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2023', 'dom'],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noUnusedLocals: true,
        noImplicitOverride: true,
        skipLibCheck: true,
        rootDir: 'src',
        outDir: 'out',
      },
      include: ['src'],
    }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const output = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      [tsc, '-p', dir, '--pretty', 'false'],
      { timeout: 120_000, cwd: dir },
      (_error, stdout, stderr) => resolve(stdout + stderr),
    );
  });
  const diagnostics = new Map<string, string[]>();
  for (const line of output.split('\n')) {
    const found = /^src\/([^(]+)\((\d+),(\d+)\): (.*)$/.exec(line);
    if (found === null) continue;
    const list = diagnostics.get(found[1]!) ?? [];
    list.push(`${found[2]}:${found[3]} ${found[4]}`);
    diagnostics.set(found[1]!, list);
  }
  return {
    dir,
    diagnostics,
    output,
    load: (file) =>
      import(pathToFileURL(join(dir, 'out', file.replace(/\.ts$/, '.js'))).href) as Promise<
        Record<string, unknown>
      >,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
