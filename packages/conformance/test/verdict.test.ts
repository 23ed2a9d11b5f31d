/**
 * The verdict counts the specification's cases: a target that passes them but answers a
 * notification with 200 (HTTP policy) and serves a body over its stated limit passes, with both
 * reported apart; `--strict` counts them. A failure that waited for an answer says where its wait
 * comes from.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSummary } from '../src/report.js';
import { runConformance } from '../src/run.js';
import { runCli } from './support.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
}

/**
 * Right by the specification, off the common HTTP policy (200 and an empty body for a
 * notification), and without the body limit it is said to have (no 413).
 */
function lenientTarget(): Promise<string> {
  return serve(
    createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        const request = JSON.parse(Buffer.concat(parts).toString()) as {
          id?: unknown;
          params: [number, number];
        };
        if (request.id === undefined) {
          res.writeHead(200).end();
          return;
        }
        const [a, b] = request.params;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', result: a - b, id: request.id }));
      });
    }),
  );
}

const ONLY = ['spec.positional-params', 'http.status-notification', 'limits.body-'];

describe('the verdict', () => {
  it('counts the specification cases; limits and HTTP policy are reported apart', async () => {
    const url = await lenientTarget();
    const config = { maxBodyBytes: 300 };
    const report = await runConformance({ target: { http: url }, config, only: ONLY });
    expect(report.results.map((r) => [r.id, r.group, r.status])).toEqual([
      ['spec.positional-params', 'spec', 'pass'],
      ['spec.positional-params-reversed', 'spec', 'pass'],
      ['http.status-notification', 'policy', 'fail'],
      ['http.status-notification-batch', 'policy', 'fail'],
      ['limits.body-at-limit', 'limits', 'pass'],
      ['limits.body-over-limit', 'limits', 'fail'],
    ]);
    expect(report).toMatchObject({ ok: true, strict: false, passed: 2, failed: 0, skipped: 0 });
    expect(report.groups).toEqual({
      spec: { passed: 2, failed: 0, skipped: 0 },
      limits: { passed: 1, failed: 1, skipped: 0 },
      policy: { passed: 0, failed: 2, skipped: 0 },
    });
    expect(formatSummary(report).split('\n')).toEqual([
      `2 passed, 0 failed, 0 skipped of 2 specification cases against http ${url}`,
      'not counted (the specification says nothing about them; --strict counts them):',
      '  limits: 1 passed, 1 failed, 0 skipped; failed: limits.body-over-limit',
      '  HTTP policy: 0 passed, 2 failed, 0 skipped; failed: http.status-notification, http.status-notification-batch',
    ]);

    const strict = await runConformance({
      target: { http: url },
      config,
      only: ONLY,
      strict: true,
    });
    expect(strict).toMatchObject({ ok: false, strict: true, passed: 3, failed: 3 });
    expect(formatSummary(strict).split('\n')).toEqual([
      `3 passed, 3 failed, 0 skipped of 6 cases (strict: limits and HTTP policy counted) against http ${url}`,
      'failed: http.status-notification, http.status-notification-batch, limits.body-over-limit',
    ]);
  }, 60_000);

  it('the command line exits 0 by default and 1 with --strict', async () => {
    const url = await lenientTarget();
    const args = ['--http', url, '--max-body-bytes', '300', ...ONLY.flatMap((p) => ['--only', p])];
    const lenient = await runCli(args);
    expect(lenient.stderr).toBe('');
    expect(lenient.stdout).toContain('FAIL http.status-notification');
    expect(lenient.stdout).toContain('2 passed, 0 failed, 0 skipped of 2 specification cases');
    expect(lenient.code).toBe(0);
    const strict = await runCli([...args, '--strict']);
    expect(strict.stdout).toContain(
      'failed: http.status-notification, http.status-notification-batch, limits.body-over-limit',
    );
    expect(strict.code).toBe(1);
  }, 60_000);

  it('a wait for an answer is told with where it comes from: a share of --timeout', async () => {
    const url = await serve(createServer(() => {})); // reads, never answers
    const report = await runConformance({
      target: { http: url },
      config: { timeoutMs: 1000 },
      only: ['spec.positional-params-reversed'],
    });
    expect(report.results[0]).toMatchObject({
      status: 'fail',
      detail: 'no HTTP answer within 600 ms (60 % of the 1000 ms case deadline, --timeout)',
    });
  }, 30_000);
});
