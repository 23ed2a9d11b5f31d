import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatResult } from '../src/report.js';
import { type ConformanceReport, caseIds, runConformance } from '../src/run.js';
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
      expect(report.passed).toBe(caseIds('stdio').length - 1);
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
    expect(run.stdout).toMatch(
      new RegExp(
        `\\n${caseIds('http').length} passed, 0 failed, 0 skipped of ${caseIds('http').length} cases against http `,
      ),
    );
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
});
