import { Agent, request } from 'node:http';
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
} from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeAll,
  echoServer,
  rawConnect,
  rawExchange,
  rawPost,
  readResponse,
} from '../test/helpers.js';
import { DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, listen } from './listen.js';

afterEach(closeAll);

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
    const http = await listen(echoServer(), { maxMessageBytes: 10 });
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

  it('waits 10 s for headers and 60 s for a request, not 60 s and 300 s as node:http does', async () => {
    await using http = await listen(echoServer());
    expect(DEFAULT_HEADERS_TIMEOUT).toBe(10_000);
    expect(DEFAULT_REQUEST_TIMEOUT).toBe(60_000);
    expect(http.httpServer.headersTimeout).toBe(DEFAULT_HEADERS_TIMEOUT);
    expect(http.httpServer.requestTimeout).toBe(DEFAULT_REQUEST_TIMEOUT);
    await using custom = await listen(echoServer(), { serverOptions: { headersTimeout: 2_000 } });
    expect(custom.httpServer.headersTimeout).toBe(2_000);
  });

  it('answers a client that dribbles its headers with 408 once headersTimeout passes', async () => {
    await using http = await listen(echoServer(), {
      serverOptions: { headersTimeout: 200, requestTimeout: 400 },
    });
    const socket = await rawConnect(http.port);
    const response = readResponse(socket, 5_000);
    socket.write('POST / HTTP/1.1\r\nhost: x\r\n');
    const timer = setInterval(() => socket.write('x-slow: 1\r\n'), 50);
    try {
      expect((await response).status).toBe(408);
    } finally {
      clearInterval(timer);
    }
  });

  it('answers connections past maxConnections with 503, and serves again once one closes', async () => {
    expect(DEFAULT_MAX_CONNECTIONS).toBe(10_000);
    await using http = await listen(echoServer(), { maxConnections: 2 });
    const a = await rawConnect(http.port);
    const b = await rawConnect(http.port);
    const c = await rawExchange(http.port, rawPost(ping));
    expect(c.status).toBe(503);
    expect(c.headers.connection).toBe('close');
    // The two admitted connections are served.
    const answer = readResponse(a);
    a.write(rawPost(ping));
    expect((await answer).status).toBe(200);
    b.destroy();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await rawExchange(http.port, rawPost(ping))).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 10));
    }
    expect(status).toBe(200);
  });

  it('answers connections past maxConnectionsPerAddress with 503', async () => {
    expect(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS).toBe(1000);
    await using http = await listen(echoServer(), { maxConnectionsPerAddress: 1 });
    const held = await rawConnect(http.port);
    const refused = await rawExchange(http.port, rawPost(ping));
    expect(refused.status).toBe(503);
    const answer = readResponse(held);
    held.write(rawPost(ping));
    expect((await answer).status).toBe(200);
  });
});
