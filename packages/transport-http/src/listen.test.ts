import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { echoServer } from '../test/helpers.js';
import { listen } from './listen.js';

const ping = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["ping"]}';

function postWith(agent: Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(ping);
  });
}

describe('listen', () => {
  it('binds 127.0.0.1 on a free port and serves with the handler options', async () => {
    const http = await listen(echoServer(), { maxRequestBytes: 10 });
    try {
      expect(http.port).toBeGreaterThan(0);
      expect(http.url).toBe(`http://127.0.0.1:${http.port}/`);
      expect(http.httpServer.listening).toBe(true);
      const agent = new Agent();
      expect((await postWith(agent, http.url)).status).toBe(413);
      agent.destroy();
    } finally {
      await http.close();
    }
    expect(http.httpServer.listening).toBe(false);
  });

  it('close() also closes idle keep-alive sockets, promptly, and is idempotent', async () => {
    const http = await listen(echoServer());
    const agent = new Agent({ keepAlive: true });
    try {
      const r = await postWith(agent, http.url);
      expect(r.status).toBe(200);
      const started = Date.now();
      await Promise.all([http.close(), http.close()]);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      agent.destroy();
    }
  });

  it('supports await using', async () => {
    let server: import('node:http').Server;
    {
      await using http = await listen(echoServer());
      server = http.httpServer;
      expect(server.listening).toBe(true);
    }
    expect(server.listening).toBe(false);
  });

  it('rejects when the port is taken', async () => {
    const first = await listen(echoServer());
    try {
      await expect(listen(echoServer(), { port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
