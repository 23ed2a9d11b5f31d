/**
 * The browser guide (docs/guides/browser-client.md) as its reader runs it: its page code
 * (`<!-- doc-test: browser -->`) bundled by esbuild for the browser into `public/app.js`, its
 * `index.html`, and its server (`<!-- doc-test: browser-server -->`) started with `PORT=0` from a
 * folder laid out as the guide says; headless Chromium opens the URL the server prints, and the
 * page must print exactly the guide's `text` block. Then the server must stop on SIGTERM, as the
 * guide says it does. The doc test (tests/integration) type-checks the same blocks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSnippets } from '../../integration/test/docs/snippets.js';
import { CHROMIUM, missing } from '../../runtimes/test/support/runtimes.js';
import { firstLine } from '../../support/first-line.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** This package: its node_modules has the packages the guide installs. */
const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const GUIDE = 'docs/guides/browser-client.md';

/** The bodies of the guide's fenced blocks in `lang`, in order. */
function fenced(text: string, lang: string): string[] {
  const blocks: string[] = [];
  const fence = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`$`, 'gm');
  for (let m = fence.exec(text); m !== null; m = fence.exec(text)) blocks.push(m[1]!);
  return blocks;
}

const markdown = readFileSync(join(ROOT, GUIDE), 'utf8');
const snippets = extractSnippets(GUIDE, markdown);
const page = snippets.filter((s) => s.mode === 'browser');
const serverBlock = snippets.filter((s) => s.mode === 'browser-server');

if (CHROMIUM === undefined) {
  console.warn(missing('Chromium', 'apt-get install -y chromium (or set CHROMIUM_PATH)'));
}
// `.ci/run` installs Chromium: in CI a missing browser is a failure, not a skip.
if (CHROMIUM === undefined && process.env.CI !== undefined) {
  it('Chromium is installed in CI', () => {
    expect.fail(missing('Chromium', 'apt-get install -y chromium'));
  });
}

it('the guide has one page block, one server block, its index.html and the expected output', () => {
  expect(page.length).toBe(1);
  expect(serverBlock.length).toBe(1);
  expect(fenced(markdown, 'html').length).toBe(1);
  expect(fenced(markdown, 'text').length).toBe(1);
});

describe.skipIf(CHROMIUM === undefined)('the browser guide in Chromium', () => {
  let work = '';
  let server: ChildProcess | undefined;
  let serverOutput = '';
  let url = '';
  let browser: Browser | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-browser-guide-'));
    symlinkSync(join(PACKAGE, 'node_modules'), join(work, 'node_modules'), 'dir');
    mkdirSync(join(work, 'public'));
    writeFileSync(join(work, 'public', 'index.html'), fenced(markdown, 'html')[0]!);
    // `npx esbuild app.ts --bundle --format=esm --outfile=public/app.js`, as the guide says.
    const bundled = await build({
      stdin: { contents: page[0]!.code, loader: 'ts', resolveDir: work, sourcefile: 'app.ts' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    writeFileSync(join(work, 'public', 'app.js'), bundled.outputFiles[0]!.text);
    // The server as Node runs a TypeScript file: types stripped, imports left to Node.
    const stripped = await transform(serverBlock[0]!.code, { loader: 'ts', format: 'esm' });
    writeFileSync(join(work, 'server.mjs'), stripped.code);
    writeFileSync(join(work, 'package.json'), '{ "type": "module", "private": true }');

    server = spawn(process.execPath, ['server.mjs'], {
      cwd: work,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stderr!.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
    url = await firstLine(server, () => serverOutput, 10_000);
    // A first launch has taken over 20 s while the rest of the suite loads both CPUs.
    browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, timeout: 60_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
    }
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('the page prints what the guide says, over HTTP and WebSocket', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const tab = await browser!.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(String(error)));
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    tab.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });
    await tab.goto(url, { timeout: 10_000 });
    const log = tab.locator('#log');
    await log
      .filter({ hasText: /^done$|Error/m })
      .waitFor({ timeout: 15_000 })
      .catch(() => {});
    expect(errors).toEqual([]);
    expect(`${(await log.textContent()) ?? ''}`.trimEnd()).toBe(fenced(markdown, 'text')[0]);
    await tab.close();
  }, 30_000);

  it('the server stops on SIGTERM, having closed what it opened', async () => {
    const exited = new Promise<number | null>((resolve) => {
      if (server!.exitCode !== null) resolve(server!.exitCode);
      server!.once('exit', (code) => resolve(code));
    });
    server!.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 5 s'), 5_000)),
    ]);
    expect(code, serverOutput).toBe(0);
  }, 10_000);
});
