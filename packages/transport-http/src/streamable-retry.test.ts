import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createStreamableHttpTransport } from './streamable-transport.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('a request stream the server closes before the answer (SEP-1699)', () => {
  it('is resumed with a GET and Last-Event-ID after the SSE retry the server gave', async () => {
    let closedAt = 0;
    const gets: { lastEventId: string | undefined; after: number }[] = [];
    let pendingId: unknown;
    const http = createHttpServer((req, res) => {
      if (req.method === 'GET') {
        const lastEventId = req.headers['last-event-id'];
        gets.push({
          lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
          after: performance.now() - closedAt,
        });
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
        res.write(
          `id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pendingId, result: 'late' })}\n\n`,
        );
        return;
      }
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        pendingId = (JSON.parse(body) as { id: unknown }).id;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
        res.write('id: e1\nretry: 300\ndata: \n\n');
        setTimeout(() => {
          closedAt = performance.now();
          res.end();
        }, 20);
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          http.closeAllConnections();
          http.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const client = createClient(createStreamableHttpTransport({ url }), { callTimeout: 5_000 });
    closers.push(() => client.close());
    expect(await client.request('work')).toBe('late');
    expect(gets).toHaveLength(1);
    expect(gets[0]?.lastEventId).toBe('e1');
    expect(gets[0]?.after).toBeGreaterThanOrEqual(280);
  });
});
