// The doc test: every ```ts / ```js block of every README (root, packages/*, examples/*) and of
// every guide of the API reference site (docs/guides/*.md) is type-checked against the built
// packages and run with Node, each as one case named by file and line, so the READMEs and guides
// cannot drift from the code. A block that is a fragment or needs an outside service says so on
// the line before its fence: `<!-- doc-test: skip (reason) -->` or
// `<!-- doc-test: typecheck-only (reason) -->`; a block that needs a program says which
// (`<!-- doc-test: needs redis-server -->`), and skips with the install hint where it is missing.
// A browser guide's page code and its server (`browser`, `browser-server`) are type-checked here
// and run together in headless Chromium by tests/docs.
// A block that runs must exit on its own (close what it opens) within RUN_TIMEOUT; network blocks
// listen on 127.0.0.1, port 0. A block is read as if it sat beside its Markdown file: relative
// imports and the working directory are that file's folder.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRedisServer, REDIS_SERVER_INSTALL_HINT } from '@jsonrpc-kit/redis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allSnippets, type Snippet } from './docs/snippets.js';

const RUN_TIMEOUT = 10_000;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const snippets = allSnippets(root);

/** Why a block that needs a program cannot run here, or `undefined` when it can. */
const programs: Record<string, () => string | undefined> = {
  'redis-server': () => (findRedisServer() === undefined ? REDIS_SERVER_INSTALL_HINT : undefined),
};
function missingProgram(s: Snippet): string | undefined {
  if (s.needs === undefined) return undefined;
  const check = programs[s.needs];
  if (check === undefined) throw new Error(`${s.file}:${s.line}: unknown program ${s.needs}`);
  return check();
}

let work = '';
/** Type errors by snippet, as `README.md:line:column TSxxxx message`. */
const diagnostics = new Map<Snippet, string[]>();

const nameOf = (s: Snippet): string =>
  `${s.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${s.line}.${s.lang === 'ts' ? 'ts' : 'mjs'}`;
const outputOf = (s: Snippet): string => nameOf(s).replace(/\.ts$/, '.js');
const folderOf = (s: Snippet): string => dirname(join(root, s.file));

/** The block's code with its relative imports made absolute (from its README's folder). */
function sourceOf(s: Snippet): string {
  const code = s.code.replace(
    /(\bfrom\s+|\bimport\s*\(\s*|^import\s+)(['"])(\.\.?\/[^'"]+)\2/gm,
    (_all, before: string, quote: string, path: string) =>
      `${before}${quote}${resolve(folderOf(s), path)}${quote}`,
  );
  return `${code}\nexport {};\n`;
}

/** Where the workspace's packages keep their dependencies, the test package's first. */
function moduleFolders(): string[] {
  const folders = [join(root, 'tests', 'integration', 'node_modules'), join(root, 'node_modules')];
  for (const group of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, group))) {
      folders.push(join(root, group, name, 'node_modules'));
    }
  }
  return folders.filter((folder) => existsSync(folder));
}

/** A node_modules for the temporary folder: links to what the repository has installed. */
function linkModules(target: string, sources: string[]): void {
  const link = (from: string, to: string): void => {
    try {
      symlinkSync(from, to, 'dir');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  };
  mkdirSync(target);
  for (const source of sources) {
    for (const entry of readdirSync(source)) {
      if (entry.startsWith('.')) continue;
      if (!entry.startsWith('@')) {
        link(join(source, entry), join(target, entry));
        continue;
      }
      mkdirSync(join(target, entry), { recursive: true });
      for (const inner of readdirSync(join(source, entry))) {
        link(join(source, entry, inner), join(target, entry, inner));
      }
    }
  }
}

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

function run(command: string, args: string[], timeout: number, cwd = work): Promise<Run> {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, output });
    });
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-docs-'));
  linkModules(join(work, 'node_modules'), moduleFolders());
  mkdirSync(join(work, 'src'));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const checked = snippets.filter((s) => s.mode !== 'skip');
  for (const s of checked) writeFileSync(join(work, 'src', nameOf(s)), sourceOf(s));
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2023', 'dom', 'dom.iterable', 'esnext.disposable'],
        types: ['node'],
        strict: true,
        skipLibCheck: true,
        allowJs: true,
        checkJs: true,
        noEmitOnError: false,
        rootDir: 'src',
        outDir: 'out',
      },
      include: ['src'],
    }),
  );
  const require = createRequire(import.meta.url);
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  const result = await run(
    process.execPath,
    [tsc, '-p', 'tsconfig.json', '--pretty', 'false'],
    120_000,
  );
  for (const line of result.output.split('\n')) {
    const found = /^src\/([^(]+)\((\d+),(\d+)\): (.*)$/.exec(line);
    if (found === null) continue;
    const s = checked.find((c) => nameOf(c) === found[1]);
    if (s === undefined) continue;
    const where = `${s.file}:${s.line + Number(found[2])}:${found[3]}`;
    diagnostics.set(s, [...(diagnostics.get(s) ?? []), `${where} ${found[4]}`]);
  }
}, 180_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('README and guide code blocks', () => {
  it('finds the blocks', () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(snippets.filter((s) => s.file.startsWith('docs/guides/')).length).toBeGreaterThan(5);
  });

  for (const s of snippets) {
    const name = `${s.file}:${s.line}`;
    if (s.mode === 'skip') {
      it.skip(`${name} (skipped: ${s.reason ?? 'no reason given'})`, () => {});
      continue;
    }
    const missing = missingProgram(s);
    if (missing !== undefined) console.warn(`${name} is type-checked, not run: ${missing}`);
    it(
      s.mode === 'run'
        ? name
        : `${name} (type-checked here${s.mode.startsWith('browser') ? `, ${s.mode}` : ''}: ${s.reason ?? 'no reason given'})`,
      async (context) => {
        expect(diagnostics.get(s) ?? [], 'type errors').toEqual([]);
        if (s.mode !== 'run') return;
        // Type-checked above; the run skips, with the install hint.
        if (missing !== undefined) return context.skip(missing);
        const script = join(work, 'out', outputOf(s));
        const result = await run(process.execPath, [script], RUN_TIMEOUT, folderOf(s));
        expect(
          { code: result.code, signal: result.signal },
          `${name} must exit 0 within ${RUN_TIMEOUT} ms (a hang means it left something open)\n${result.output}`,
        ).toEqual({ code: 0, signal: null });
      },
      RUN_TIMEOUT + 5_000,
    );
  }
});
