import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { type ConformanceReport, runConformance } from './run.js';

const MiB = 1024 * 1024;
/** The budget the tests give a case. */
const LIMIT = MiB;
const TOO_LONG = new RegExp(`^fail: the target sent more than ${LIMIT} bytes in this case`);
/** What a target may write before the tool stops it, at most: the budget and the socket buffers. */
const WRITTEN_AT_MOST = 64 * MiB;
/** Where a hostile target stops on its own, so that a tool without a bound still ends. */
const HOSTILE_STOP = 256 * MiB;

const statuses = (report: ConformanceReport) =>
  Object.fromEntries(report.results.map((r) => [r.id, `${r.status}: ${r.detail}`]));

/** The answer of a plain subtract (the reversed case and the follow-up requests). */
function subtract(text: string): string {
  const request = JSON.parse(text) as { id: unknown; params: [number, number] };
  const [a, b] = request.params;
  return JSON.stringify({ jsonrpc: '2.0', result: a - b, id: request.id });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('a target that answers without end fails its case at maxAnswerBytes; the next case runs', () => {
  it('over HTTP: a chunked body that never ends', async () => {
    let written = 0;
    let requests = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (++requests > 1) {
          res.end(subtract(Buffer.concat(parts).toString()));
          return;
        }
        res.write('{"jsonrpc":"2.0","id":1,"result":"');
        const pump = (): void => {
          while (!res.destroyed && written < HOSTILE_STOP) {
            written += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      });
    });
    const port = await listen(server);
    try {
      const report = await runConformance({
        target: { http: `http://127.0.0.1:${port}/` },
        config: { maxAnswerBytes: LIMIT, timeoutMs: 5_000 },
        only: ['spec.positional-params'],
      });
      expect(statuses(report)).toEqual({
        'spec.positional-params': expect.stringMatching(TOO_LONG) as unknown,
        'spec.positional-params-reversed': 'pass: result -19, id 2',
      });
      expect(written).toBeLessThan(WRITTEN_AT_MOST);
    } finally {
      await close(server);
    }
  });

  it('over WebSocket: a message far larger than the bound', async () => {
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    let connections = 0;
    wss.on('connection', (socket) => {
      const hostile = ++connections === 1;
      socket.on('message', (data) => {
        if (hostile) socket.send(Buffer.alloc(64 * MiB, 0x61).toString());
        else socket.send(subtract(String(data)));
      });
    });
    const port = await listen(http);
    try {
      const report = await runConformance({
        target: { ws: `ws://127.0.0.1:${port}/` },
        config: { maxAnswerBytes: LIMIT, timeoutMs: 5_000 },
        only: ['spec.positional-params'],
      });
      expect(statuses(report)).toEqual({
        'spec.positional-params': expect.stringMatching(TOO_LONG) as unknown,
        'spec.positional-params-reversed': 'pass: result -19, id 2',
      });
    } finally {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await close(http);
    }
  });

  it('over stdio: stdout without a line break; the target is stopped', async () => {
    // Writes "aaaa…" without end (up to HOSTILE_STOP), never a line break.
    const script = `const chunk = Buffer.alloc(65536, 0x61); let n = 0;
const pump = () => { while (n < ${HOSTILE_STOP}) { n += chunk.length; if (!process.stdout.write(chunk)) return process.stdout.once('drain', pump); } };
pump(); process.stdin.resume();`;
    const started = Date.now();
    const report = await runConformance({
      target: { stdio: `'${process.execPath}' -e "${script}"`, framing: 'newline' },
      config: { maxAnswerBytes: LIMIT, timeoutMs: 5_000 },
      only: ['spec.positional-params'],
    });
    expect(statuses(report)).toEqual({
      'spec.positional-params': expect.stringMatching(TOO_LONG) as unknown,
      'spec.positional-params-reversed': expect.stringMatching(TOO_LONG) as unknown,
    });
    // Each case ends at the bound, not at its deadline.
    expect(report.results.every((r) => r.durationMs < 5_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);
});
