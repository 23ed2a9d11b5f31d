// Finds the ```ts and ```js code blocks of the repository's READMEs and of the guides of the API
// reference site (docs/guides), so that the doc test can type-check and run each one as written.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What the doc test does with a block; set by a comment on the line before the fence. `browser`
 * (a page's code) and `browser-server` (the server of that page, which serves until stopped) are
 * type-checked here and run together in headless Chromium by the browser guide test (tests/docs).
 */
export type SnippetMode = 'run' | 'typecheck-only' | 'skip' | 'browser' | 'browser-server';

/** One code block of a README. */
export interface Snippet {
  /** The README, relative to the repository root. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** `ts` or `js`. */
  readonly lang: 'ts' | 'js';
  /** The code between the fences. */
  readonly code: string;
  /** `run` (type-check and execute), `typecheck-only`, `skip`, `browser` or `browser-server`. */
  readonly mode: SnippetMode;
  /** Why the block is not run, from the marker. */
  readonly reason: string | undefined;
  /**
   * A program the block needs to run (`<!-- doc-test: needs redis-server -->`): without it the
   * case skips and says how to install it.
   */
  readonly needs?: string | undefined;
}

const FENCE = /^```(ts|typescript|js|javascript|mjs)\s*$/;
/**
 * `<!-- doc-test: skip (reason) -->`, `<!-- doc-test: typecheck-only (reason) -->`,
 * `<!-- doc-test: browser (reason) -->`, `<!-- doc-test: browser-server (reason) -->`, or
 * `<!-- doc-test: needs redis-server -->` (run when the program is installed, else skipped).
 */
const MARKER =
  /^<!--\s*doc-test:\s*(skip|typecheck-only|browser-server|browser|needs\s+([\w.-]+))\s*(?:\((.*)\))?\s*-->$/;

/**
 * The code blocks of one Markdown text.
 *
 * @param file - its path relative to the repository root, for the names of the cases
 * @param text - the Markdown
 * @returns the blocks in order; a marker applies to the block right after it (blank lines between
 *   are allowed)
 * @throws Error for a marker that is not followed by a code block, or an unclosed fence
 */
export function extractSnippets(file: string, text: string): Snippet[] {
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  let marker:
    | { mode: SnippetMode; reason: string | undefined; needs: string | undefined; line: number }
    | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const found = MARKER.exec(line);
    if (found !== null) {
      const needs = found[2];
      const mode: SnippetMode = needs === undefined ? (found[1] as SnippetMode) : 'run';
      marker = { mode, reason: found[3], needs, line: i + 1 };
      continue;
    }
    if (line === '') continue;
    if (line.startsWith('```')) {
      const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
      if (end === -1) throw new Error(`${file}:${i + 1}: unclosed code fence`);
      const lang = FENCE.exec(line)?.[1];
      if (lang !== undefined) {
        snippets.push({
          file,
          line: i + 1,
          lang: lang.startsWith('t') ? 'ts' : 'js',
          code: lines.slice(i + 1, end).join('\n'),
          mode: marker?.mode ?? 'run',
          reason: marker?.reason,
          ...(marker?.needs === undefined ? {} : { needs: marker.needs }),
        });
      } else if (marker !== undefined) {
        throw new Error(`${file}:${marker.line}: a doc-test marker before a ${line} block`);
      }
      marker = undefined;
      i = end;
      continue;
    }
    if (marker !== undefined) {
      throw new Error(`${file}:${marker.line}: a doc-test marker must come right before a fence`);
    }
  }
  if (marker !== undefined) throw new Error(`${file}:${marker.line}: a marker with no block`);
  return snippets;
}

/**
 * The guides of the API reference site: `docs/guides/*.md`.
 *
 * @param root - the repository root
 * @returns absolute paths, sorted
 */
export function guides(root: string): string[] {
  const folder = join(root, 'docs', 'guides');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(folder, name))
    .sort();
}

/**
 * The READMEs the doc test covers: the root one, and those of `packages/*` and `examples/*`.
 *
 * @param root - the repository root
 * @returns absolute paths, sorted
 */
export function readmes(root: string): string[] {
  const found = [join(root, 'README.md')];
  for (const group of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(root, group, entry.name, 'README.md');
      try {
        readFileSync(path);
        found.push(path);
      } catch {
        // A folder without a README.
      }
    }
  }
  return found.sort();
}

/**
 * Every code block of every README and guide the doc test covers.
 *
 * @param root - the repository root
 * @returns the blocks, file by file
 */
export function allSnippets(root: string): Snippet[] {
  return [...readmes(root), ...guides(root)].flatMap((path) =>
    extractSnippets(relative(root, path), readFileSync(path, 'utf8')),
  );
}
