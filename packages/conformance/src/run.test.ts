import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { ALL_CASES } from './cases/index.js';
import { type ConformanceReport, caseIds, describeTarget, runConformance } from './run.js';

const statuses = (report: ConformanceReport) =>
  Object.fromEntries(report.results.map((r) => [r.id, `${r.status}: ${r.detail}`]));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('runConformance never hangs on a target that says nothing', () => {
  it('over HTTP: every case fails at its deadline', async () => {
    const silent = createServer(() => {}); // reads requests, never answers
    const port = await listen(silent);
    try {
      const report = await runConformance({
        target: { http: `http://127.0.0.1:${port}/` },
        config: { timeoutMs: 300 },
        only: ['spec.positional-params', 'spec.notification'],
      });
      expect(statuses(report)).toEqual({
        'spec.positional-params':
          'fail: no HTTP answer within 180 ms (60 % of the 300 ms case deadline, --timeout)',
        'spec.positional-params-reversed':
          'fail: no HTTP answer within 180 ms (60 % of the 300 ms case deadline, --timeout)',
        'spec.notification':
          'fail: no HTTP answer within 180 ms (60 % of the 300 ms case deadline, --timeout)',
        'spec.notification-unknown-method':
          'fail: no HTTP answer within 180 ms (60 % of the 300 ms case deadline, --timeout)',
      });
      expect(report.ok).toBe(false);
    } finally {
      await close(silent);
    }
  });

  it('over WebSocket: a silent peer cannot prove that nothing was answered', async () => {
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    const port = await listen(http);
    try {
      const report = await runConformance({
        target: { ws: `ws://127.0.0.1:${port}/` },
        config: { timeoutMs: 400 },
        only: ['spec.notification', 'ws.close'],
      });
      expect(statuses(report)).toMatchObject({
        'spec.notification':
          'fail: the target stopped answering: no answer to a follow-up request within 240 ms (60 % of the 400 ms case deadline, --timeout)',
        'ws.close': 'pass: closed with 1000',
      });
    } finally {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await close(http);
    }
  });

  it('over stdio: a child that reads and never writes; its exit on end of input is seen', async () => {
    const command = `'${process.execPath}' -e "process.stdin.resume()"`;
    const report = await runConformance({
      target: { stdio: command, framing: 'content-length' },
      // Generous: starting node can take a second on a busy machine.
      config: { timeoutMs: 3_000 },
      only: ['spec.positional-params', 'stdio.exit-on-eof'],
    });
    expect(statuses(report)).toMatchObject({
      'spec.positional-params': expect.stringMatching(/^fail: nothing answered/),
      'stdio.exit-on-eof': 'pass: exited with 0',
    });
  });

  it('over stdio: stray output on stdout is caught', async () => {
    const command = `'${process.execPath}' -e "process.stdout.write('ready\\n'); process.stdin.resume()"`;
    const report = await runConformance({
      target: { stdio: command, framing: 'newline' },
      config: { timeoutMs: 3_000 },
      only: ['stdio.stdout-clean'],
    });
    expect(statuses(report)).toEqual({
      'stdio.stdout-clean': 'fail: 1 bad frame(s) on stdout: not JSON: "ready"',
    });
  });

  it('a spawn that fails is a failed case, not a thrown error', async () => {
    const report = await runConformance({
      target: { stdio: 'exit 3', framing: 'newline' },
      config: { timeoutMs: 400 },
      only: ['spec.parse-error'],
    });
    expect(report.results[0]).toMatchObject({ id: 'spec.parse-error', status: 'fail' });
  });
});

describe('the case list', () => {
  it('has unique ids, and each transport gets its own cases', () => {
    const ids = ALL_CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(caseIds('http')).toContain('http.get');
    expect(caseIds('http')).not.toContain('ws.close');
    expect(caseIds('ws')).toContain('cancel.cancel-request');
    expect(caseIds('stdio')).toContain('stdio.resync');
    expect(caseIds('stdio').at(-1)).toBe('stdio.exit-on-eof');
  });

  it('is the one the README documents', () => {
    const readme = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md'),
      'utf8',
    );
    const section = readme.slice(readme.indexOf('\n## Cases'), readme.indexOf('\n## Where'));
    const documented = [...section.matchAll(/^\| `([a-z0-9_.-]+)` \| /gim)].map((m) => m[1]);
    expect(documented).toEqual(ALL_CASES.map((c) => c.id));
  });

  it('describes targets in a few words', () => {
    expect(describeTarget({ http: 'http://h/rpc' })).toBe('http http://h/rpc');
    expect(describeTarget({ stdio: 'node s.js', framing: 'newline' })).toBe(
      "stdio 'node s.js' (newline)",
    );
  });
});
