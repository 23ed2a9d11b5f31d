/**
 * The API reference site (`pnpm run docs`, docs/site) in headless Chromium, served by a tiny
 * static server on 127.0.0.1: the front page and every guide load with no failed request and no
 * script error; every internal link of those pages resolves (the page exists, and so does the
 * anchor a `#fragment` names); each guide's code blocks are all there, as written, in
 * `<pre><code>`, the TypeScript ones highlighted; TypeDoc's search finds a known export; and the
 * front page still looks like its committed screenshot (see `the front page looks like its
 * reference screenshot`).
 *
 * The site is built when docs/site is missing or older than its Markdown and configuration (the
 * root README and the files it links, the guides, the TypeDoc config, the packages' READMEs and
 * package.json files): `pnpm check` builds it just before the tests, so there it is used as it
 * is; elsewhere a run after such a change builds it first (a minute or two). A change to a
 * package's sources alone does not: the pages checked here are the README and the guides, and
 * `pnpm run docs` itself fails on a broken `{@link}` or a missing doc comment.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, missing } from '../../runtimes/test/support/runtimes.js';
import { decodePng, distinctColors, luminanceGrid } from './support/png.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const SITE = join(DOCS, 'site');
const GUIDES = join(DOCS, 'guides');
const REFERENCE = fileURLToPath(new URL('./screenshots/front-page.png', import.meta.url));
/** `UPDATE_SCREENSHOTS=1` rewrites the reference screenshot instead of comparing with it. */
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';
const BUILD_TIMEOUT = 300_000;

/** A guide: its file, its title (front matter), and its fenced blocks in order. */
interface Guide {
  readonly file: string;
  readonly title: string;
  readonly blocks: readonly { readonly lang: string; readonly code: string }[];
}

function readGuide(file: string): Guide {
  const text = readFileSync(join(GUIDES, file), 'utf8');
  const title = /^---\n[\s\S]*?^title: (.+)$[\s\S]*?^---$/m.exec(text)?.[1];
  if (title === undefined) throw new Error(`docs/guides/${file}: no title in its front matter`);
  const blocks: { lang: string; code: string }[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)\n```$/gm;
  for (let m = fence.exec(text); m !== null; m = fence.exec(text)) {
    blocks.push({ lang: m[1]!, code: m[2]! });
  }
  return { file, title, blocks };
}

const guides = readdirSync(GUIDES)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map(readGuide);

/** The newest modification time of the Markdown and configuration the site is built from. */
function newestSource(): number {
  let newest = 0;
  const visit = (path: string): void => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const file of readdirSync(ROOT).filter((name) => name.endsWith('.md'))) {
    visit(join(ROOT, file));
  }
  for (const file of ['typedoc.config.mjs', 'typedoc-plugin-entry-names.mjs', 'package.json']) {
    visit(join(DOCS, file));
  }
  visit(GUIDES);
  for (const name of readdirSync(join(ROOT, 'packages'))) {
    for (const part of ['package.json', 'README.md']) {
      visit(join(ROOT, 'packages', name, part));
    }
  }
  return newest;
}

/** Runs TypeDoc as `pnpm run docs` does, when the site is missing or stale. */
async function ensureSite(): Promise<void> {
  const index = join(SITE, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource()) return;
  console.warn('docs/site is missing or older than its sources: building it (pnpm run docs)');
  const require = createRequire(join(DOCS, 'package.json'));
  const typedoc = join(dirname(require.resolve('typedoc/package.json')), 'bin', 'typedoc');
  const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [typedoc], {
      cwd: DOCS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT - 10_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, text });
    });
  });
  if (output.code !== 0) throw new Error(`TypeDoc failed (exit ${output.code}):\n${output.text}`);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
};

/** A static server of docs/site; `missing` records every path it answered 404. */
async function serveSite(missing: string[]): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://site').pathname);
    const file = join(SITE, normalize(path.endsWith('/') ? `${path}index.html` : path));
    if (file !== SITE && !file.startsWith(SITE + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      missing.push(path);
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

if (CHROMIUM === undefined) {
  console.warn(missing('Chromium', 'apt-get install -y chromium (or set CHROMIUM_PATH)'));
}
// `.ci/run` installs Chromium: in CI a missing browser is a failure, not a skip.
if (CHROMIUM === undefined && process.env.CI !== undefined) {
  it('Chromium is installed in CI', () => {
    expect.fail(missing('Chromium', 'apt-get install -y chromium'));
  });
}

it('every guide has a title and code blocks', () => {
  expect(guides.length).toBeGreaterThanOrEqual(6);
  for (const guide of guides) expect(guide.blocks.length, guide.file).toBeGreaterThan(0);
});

describe.skipIf(CHROMIUM === undefined)('the API reference site in Chromium', () => {
  const notFound: string[] = [];
  let server: Server | undefined;
  let origin = '';
  let browser: Browser | undefined;
  /** The guides' page URLs, found through the front page's links. */
  const guidePages = new Map<string, string>();
  /** Every internal link of the pages loaded, with the page it was found on. */
  const links = new Map<string, string>();

  /** Opens `url` in a new tab; fails on a script error or a request that failed. */
  async function open(url: string): Promise<Page> {
    const page = await browser!.newPage({
      viewport: { width: 1280, height: 800 },
      colorScheme: 'light',
    });
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`script error: ${String(error)}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(url, { waitUntil: 'load' });
    // The navigation tree is filled in by a script, from a compressed index.
    await page.locator('#tsd-nav-container li a').first().waitFor();
    expect(problems, url).toEqual([]);
    for (const href of await page.$$eval('a[href]', (as) =>
      as.map((a) => (a as HTMLAnchorElement).href),
    )) {
      if (href.startsWith(`${origin}/`) && !links.has(href)) links.set(href, url);
    }
    return page;
  }

  beforeAll(async () => {
    await ensureSite();
    server = await serveSite(notFound);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A first launch has taken over 20 s while the rest of the suite loads both CPUs.
    browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, timeout: 60_000 });
  }, BUILD_TIMEOUT + 70_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  it('the front page loads and links every guide by its title, and the policies', async () => {
    const page = await open(`${origin}/index.html`);
    expect(await page.title()).toBe('jsonrpc-kit');
    for (const guide of guides) {
      const link = page.locator('.tsd-panel a', { hasText: guide.title }).first();
      const href = await link.evaluate((a) => (a as HTMLAnchorElement).href);
      expect(href, guide.title).toMatch(new RegExp(`^${origin}/documents/[^/]+\\.html$`));
      guidePages.set(guide.file, href);
    }
    // The policies it links are pages of the site too, not raw Markdown.
    for (const policy of ['POLICIES.md', 'SECURITY.md', 'ROADMAP.md']) {
      const href = await page
        .locator('.tsd-panel a', { hasText: policy })
        .first()
        .evaluate((a) => (a as HTMLAnchorElement).href);
      expect(href, policy).toMatch(new RegExp(`^${origin}/documents/[^/]+\\.html$`));
    }
    await page.close();
  }, 30_000);

  it('each guide loads, with every code block as written, the TypeScript ones highlighted', async () => {
    expect(guidePages.size).toBe(guides.length);
    for (const guide of guides) {
      const page = await open(guidePages.get(guide.file)!);
      expect(await page.locator('h1').first().textContent(), guide.file).toBe(guide.title);
      const rendered = await page.$$eval('.tsd-typography pre > code', (codes) =>
        codes.map((code) => ({
          // biome-ignore lint/performance/useDomNodeTextContent: TypeDoc breaks the lines of a highlighted block with <br>, which only innerText reads as line breaks
          text: (code as HTMLElement).innerText,
          highlighted: code.querySelectorAll('span[class^="hl-"]').length,
        })),
      );
      expect(
        rendered.map((r) => r.text.trimEnd()),
        guide.file,
      ).toEqual(guide.blocks.map((b) => b.code.trimEnd()));
      guide.blocks.forEach((block, i) => {
        if (block.lang === 'ts') {
          expect(rendered[i]!.highlighted, `${guide.file}, block ${i + 1}`).toBeGreaterThan(10);
        }
      });
      await page.close();
    }
  }, 60_000);

  it('every internal link of those pages resolves, anchors included', async () => {
    expect(links.size).toBeGreaterThan(50);
    const bodies = new Map<string, Promise<{ status: number; text: string }>>();
    const fetchPage = (url: string) => {
      let body = bodies.get(url);
      if (body === undefined) {
        body = fetch(url).then(async (res) => ({ status: res.status, text: await res.text() }));
        bodies.set(url, body);
      }
      return body;
    };
    const broken: string[] = [];
    await Promise.all(
      [...links].map(async ([href, from]) => {
        const url = new URL(href);
        const fragment = decodeURIComponent(url.hash.slice(1));
        url.hash = '';
        const { status, text } = await fetchPage(url.href);
        if (status !== 200) {
          broken.push(`${href} (${status}), linked from ${from}`);
        } else if (
          fragment !== '' &&
          url.pathname.endsWith('.html') &&
          !text.includes(`id="${fragment}"`) &&
          !text.includes(`name="${fragment}"`)
        ) {
          broken.push(`${href} (no such anchor), linked from ${from}`);
        }
      }),
    );
    expect(broken).toEqual([]);
    // Chromium asks every site for /favicon.ico on its own; TypeDoc makes none.
    expect(notFound.filter((path) => path !== '/favicon.ico')).toEqual([]);
  }, 60_000);

  it("TypeDoc's search finds an export and leads to its page", async () => {
    const page = await open(`${origin}/index.html`);
    await page.locator('#tsd-search-trigger').click();
    await page.locator('#tsd-search-input').fill('createFaultyTransport');
    const first = page.locator('#tsd-search-results li a').first();
    await expect
      .poll(() => first.textContent(), { timeout: 10_000 })
      .toContain('createFaultyTransport');
    const href = await first.evaluate((a) => (a as HTMLAnchorElement).href);
    expect(href).toMatch(/\/functions\/.*createFaultyTransport\.html$/);
    const target = await fetch(href);
    expect(target.status).toBe(200);
    expect(await target.text()).toContain('createFaultyTransport');
    await page.close();
  }, 30_000);

  // A pixel-exact comparison would fail wherever fonts or anti-aliasing differ (another
  // Chromium, other system fonts). This compares what those leave alone: the screenshot's size,
  // and the page as a grid of 40 px cells, each its mean luminance. Text set in a slightly
  // different font changes a cell's mean a little; a missing stylesheet, a lost navigation tree,
  // another theme or a broken layout moves whole regions and changes many cells a lot.
  // `UPDATE_SCREENSHOTS=1` rewrites the reference (after a deliberate change to the top of the
  // README or to the site's look).
  it('the front page looks like its reference screenshot', async () => {
    const page = await open(`${origin}/index.html`);
    await page.evaluate(() => document.fonts.ready);
    const shot = await page.screenshot({ animations: 'disabled', caret: 'hide' });
    await page.close();
    const image = decodePng(shot);
    expect([image.width, image.height]).toEqual([1280, 800]);
    expect(distinctColors(image)).toBeGreaterThan(16); // not blank
    if (UPDATE || !existsSync(REFERENCE)) {
      mkdirSync(dirname(REFERENCE), { recursive: true });
      writeFileSync(REFERENCE, shot);
      expect(UPDATE, `no reference screenshot: wrote ${REFERENCE}; commit it`).toBe(true);
      return;
    }
    const reference = decodePng(readFileSync(REFERENCE));
    expect([reference.width, reference.height]).toEqual([image.width, image.height]);
    const now = luminanceGrid(image, 40).flat();
    const then = luminanceGrid(reference, 40).flat();
    const differences = now.map((value, i) => Math.abs(value - then[i]!));
    const mean = differences.reduce((a, b) => a + b, 0) / differences.length;
    const far = differences.filter((d) => d > 40).length / differences.length;
    const actual = join(tmpdir(), 'jsonrpc-kit-front-page.png');
    if (mean > 8 || far > 0.1) writeFileSync(actual, shot);
    expect(
      { mean: Math.round(mean), far: Math.round(far * 100) },
      `the front page (${actual}) no longer looks like tests/docs/test/screenshots/front-page.png: ` +
        'mean luminance difference per 40 px cell, and the % of cells off by more than 40; after ' +
        'a deliberate change, UPDATE_SCREENSHOTS=1 pnpm vitest run tests/docs/test/site.test.ts',
    ).toEqual({
      mean: expect.toSatisfy((m: number) => m <= 8),
      far: expect.toSatisfy((f: number) => f <= 10),
    });
  }, 30_000);
});
