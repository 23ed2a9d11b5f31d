import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatResult } from '../src/report.js';
import { type ConformanceReport, caseGroup, caseIds, runConformance } from '../src/run.js';
import { type ChildServer, quote, runCli, SERVER_JS, startChild } from './support.js';

const failures = (report: ConformanceReport): string[] =>
  report.results.filter((r) => r.status === 'fail').map(formatResult);

describe('the kit conformance server passes every case', () => {
  let server: ChildServer;
  beforeAll(async () => {
    server = await startChild(SERVER_JS, ['--port', '0']);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('over HTTP', async () => {
    const report = await runConformance({ target: { http: server.urls[0]! } });
    expect(failures(report)).toEqual([]);
    expect(report.results.map((r) => r.id)).toEqual(caseIds('http'));
    expect(report.skipped).toBe(0);
    expect(report.ok).toBe(true);
  }, 120_000);

  it('over WebSocket', async () => {
    const report = await runConformance({ target: { ws: server.urls[1]! } });
    expect(failures(report)).toEqual([]);
    // Only the MCP cancellation dialect is skipped: the server speaks $/cancelRequest.
    expect(report.results.filter((r) => r.status === 'skip').map((r) => r.id)).toEqual([
      'cancel.notifications-cancelled',
    ]);
  }, 120_000);

  for (const framing of ['content-length', 'newline'] as const) {
    it(`over stdio (${framing})`, async () => {
      const command = `${quote(process.execPath)} ${quote(SERVER_JS)} --stdio ${framing}`;
      const report = await runConformance({ target: { stdio: command, framing } });
      expect(failures(report)).toEqual([]);
      // Every specification case but the MCP cancellation dialect; the limit cases pass apart.
      expect(report.passed).toBe(
        caseIds('stdio').filter((id) => caseGroup(id) === 'spec').length - 1,
      );
      expect(report.groups.limits).toEqual({ passed: 4, failed: 0, skipped: 0 });
    }, 120_000);
  }

  it('through the built command line: a line per case, a summary, exit 0', async () => {
    const run = await runCli(['--http', server.urls[0]!]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    for (const id of caseIds('http')) {
      expect(lines.some((line) => line.startsWith(`PASS ${id} — `))).toBe(true);
    }
    const counted = caseIds('http').filter((id) => caseGroup(id) === 'spec').length;
    expect(run.stdout).toMatch(
      new RegExp(
        `\\n${counted} passed, 0 failed, 0 skipped of ${counted} specification cases against http `,
      ),
    );
    expect(run.stdout).toContain('\n  limits: 4 passed, 0 failed, 0 skipped\n');
    expect(run.stdout).toContain('\n  HTTP policy: 7 passed, 0 failed, 0 skipped\n');
  }, 120_000);

  it('through the built command line with --json', async () => {
    const run = await runCli(['--ws', server.urls[1]!, '--only', 'spec.', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ConformanceReport;
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => r.id)).toEqual(
      caseIds('ws').filter((id) => id.startsWith('spec.')),
    );
    expect(report.results.find((r) => r.id === 'spec.batch')).toMatchObject({
      status: 'pass',
      detail: '5 responses, in request order',
      ambiguity: expect.stringContaining('any order'),
    });
  }, 60_000);

  it('exits 1 when a case fails, naming it', async () => {
    // Told that `sum` subtracts, the target's answers are wrong.
    const run = await runCli([
      '--http',
      server.urls[0]!,
      '--method',
      'subtract=sum',
      '--only',
      'spec.positional-params',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL spec.positional-params — result 65, expected 19\n');
    expect(run.stdout).toContain('failed: spec.positional-params, spec.positional-params-reversed');
  }, 60_000);

  it('reads a configuration file, and flags override it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-'));
    try {
      const file = join(dir, 'target.json');
      await writeFile(file, JSON.stringify({ methods: { subtract: 'sum' }, timeoutMs: 4000 }));
      const only = ['--only', 'spec.positional-params-reversed'];
      const fromFile = await runCli(['--http', server.urls[0]!, '--config', file, ...only]);
      expect(fromFile.code).toBe(1);
      expect(fromFile.stdout).toContain('FAIL spec.positional-params-reversed — result 65');
      const overridden = await runCli([
        '--http',
        server.urls[0]!,
        '--config',
        file,
        '--method',
        'subtract=subtract',
        ...only,
      ]);
      expect(overridden.code).toBe(0);
      expect(overridden.stdout).toContain('PASS spec.positional-params-reversed — result -19');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('exits 2 with the usage on a bad command line or configuration', async () => {
    const noTarget = await runCli([]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toMatch(/give exactly one of --http, --ws and --stdio\n\nUsage: /);
    const missing = await runCli(['--http', server.urls[0]!, '--config', '/nonexistent/x.json']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
  }, 60_000);
});
