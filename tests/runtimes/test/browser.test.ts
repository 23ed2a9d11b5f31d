/**
 * Chromium (the system package, driven by playwright-core): a page loads the client bundled with
 * esbuild from one origin and calls kit servers on other origins over HTTP (CORS) and
 * WebSocket (Origin checked): the client scenario, then reconnection after the WebSocket server
 * restarts on the same port.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from '@jsonrpc-kit/server';
import {
  createStreamableHttpNodeHandler,
  type HttpListener,
  listen,
  type StreamableNodeHttpHandler,
} from '@jsonrpc-kit/transport-http';
import { createWebSocketServer, type JsonRpcWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConformanceServer } from '../../../examples/conformance-server/src/methods.js';
import type { BrowserKit } from './fixtures/browser-entry.js';
import { EXPECTED } from './fixtures/client-scenario.js';
import { bundle } from './support/bundle.js';
import { CHROMIUM, missing } from './support/runtimes.js';

if (CHROMIUM === undefined) {
  console.warn(missing('Chromium', 'apt-get install -y chromium (or set CHROMIUM_PATH)'));
}

type Window = typeof globalThis & { kit: BrowserKit; reconnecting?: ReconnectProbe };

/** The page's reconnecting client, kept on `window` between steps. */
interface ReconnectProbe {
  readonly client: ReturnType<BrowserKit['createClient']>;
  readonly states: string[];
  queued?: Promise<unknown>;
}

async function servePage(script: string): Promise<HttpServer> {
  const page = createHttpServer((req, res) => {
    if (req.url === '/kit.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>kit</title><script type="module" src="/kit.js"></script>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  return page;
}

function startWebSocketServer(
  server: Server,
  port: number,
  origin: string,
): Promise<JsonRpcWebSocketServer> {
  const wss = createWebSocketServer(server, { port, host: '127.0.0.1', allowedOrigins: [origin] });
  return wss.ready.then(() => wss);
}

/** A Streamable HTTP server on its own origin: progress and a server→client request. */
async function startStreamable(
  origin: string,
): Promise<{ http: HttpServer; handler: StreamableNodeHttpHandler; url: string }> {
  const rpc = createServer();
  rpc.method('initialize', () => ({ protocolVersion: '2025-06-18' }));
  rpc.method('count', async ({ to }: { to: number }, ctx) => {
    for (let i = 1; i <= to; i++) await ctx.peer?.notify('progress', { done: i });
    return 'counted';
  });
  rpc.method('ask', (_params: unknown, ctx) => ctx.peer?.request('whoami'));
  const handler = createStreamableHttpNodeHandler(rpc, { cors: { origin } });
  const http = createHttpServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, handler, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/` };
}

// `.ci/run` installs Chromium: in CI a missing browser is a failure, not a skip.
if (CHROMIUM === undefined && process.env.CI !== undefined) {
  it('Chromium is installed in CI', () => {
    expect.fail(missing('Chromium', 'apt-get install -y chromium'));
  });
}

describe.skipIf(CHROMIUM === undefined)('Chromium', () => {
  const server = createConformanceServer();
  let browser: Browser | undefined;
  let page: Page;
  let pageServer: HttpServer | undefined;
  let http: HttpListener | undefined;
  let wss: JsonRpcWebSocketServer | undefined;
  let wsUrl = '';
  let streamable: { http: HttpServer; handler: StreamableNodeHttpHandler; url: string } | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const script = await bundle('browser-entry.ts', { conditions: ['browser'] });
    pageServer = await servePage(script);
    const origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    http = await listen(server, { port: 0, cors: { origin } });
    wss = await startWebSocketServer(server, 0, origin);
    wsUrl = `ws://127.0.0.1:${wss.port}`;
    streamable = await startStreamable(origin);
    // A first launch (a new profile) takes ~4 s on an idle machine and has taken over 20 s while
    // the rest of the suite loads both CPUs.
    browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, timeout: 60_000 });
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (globalThis as Partial<Window>).kit !== undefined);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await wss?.close({ timeout: 500 });
    streamable?.http.closeAllConnections();
    streamable?.http.close();
    await streamable?.handler.close();
    await http?.close();
    await new Promise((resolve) => pageServer?.close(resolve) ?? resolve(undefined));
    pageServer?.closeAllConnections();
  });

  it('runs the client scenario cross-origin: HTTP with CORS, WebSocket with an Origin check', async () => {
    const results = await page.evaluate(
      ([httpUrl, url]) => (globalThis as Window).kit.runClientScenario(httpUrl, url),
      [http!.url, wsUrl] as const,
    );
    expect(results).toEqual(EXPECTED);
    expect(pageErrors).toEqual([]);
  }, 30_000);

  it('speaks Streamable HTTP cross-origin: session, progress on the event stream, a server request', async () => {
    const seen = await page.evaluate(async (url) => {
      const w = globalThis as Window;
      const progress: unknown[] = [];
      const transport = w.kit.createStreamableHttpTransport({ url });
      const client = w.kit.createClient(transport, {
        onNotification: (n) => void progress.push(n.params),
        onRequest: (r) => (r.method === 'whoami' ? 'chromium' : undefined),
      });
      await client.request('initialize', {});
      const counted = await client.request('count', { to: 3 });
      const asked = await client.request('ask');
      const session = transport.sessionId !== undefined;
      await transport.endSession();
      await client.close();
      return { counted, asked, progress, session };
    }, streamable!.url);
    expect(seen).toEqual({
      counted: 'counted',
      asked: 'chromium',
      progress: [{ done: 1 }, { done: 2 }, { done: 3 }],
      session: true,
    });
    expect(streamable!.handler.sessions).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 30_000);

  it('reconnects after the WebSocket server restarts; a call made while it was down is answered', async () => {
    const port = wss!.port;
    const first = await page.evaluate(async (url) => {
      const w = globalThis as Window;
      const states: string[] = [];
      const transport = w.kit.createWebSocketTransport({
        url,
        reconnect: { strategy: 'fixed', delay: 100, jitter: 0 },
        onStateChange: (state) => states.push(state),
      });
      const client = w.kit.createClient(transport);
      w.reconnecting = { client, states };
      return client.request('sum', [1, 2]);
    }, wsUrl);
    expect(first).toBe(3);

    await wss!.close({ timeout: 500 });
    await page.waitForFunction(() =>
      (globalThis as Window).reconnecting!.states.includes('reconnecting'),
    );
    await page.evaluate(() => {
      const probe = (globalThis as Window).reconnecting!;
      probe.queued = probe.client.request('sum', [4, 5]);
      probe.queued.catch(() => {});
    });
    const origin = new URL(page.url()).origin;
    wss = await startWebSocketServer(server, port, origin);

    const after = await page.evaluate(async () => {
      const probe = (globalThis as Window).reconnecting!;
      const queued = await probe.queued;
      const fresh = await probe.client.request('sum', [2, 3]);
      await probe.client.close();
      return { queued, fresh, states: probe.states };
    });
    expect(after.queued).toBe(9);
    expect(after.fresh).toBe(5);
    expect(after.states).toEqual(expect.arrayContaining(['open', 'reconnecting']));
    expect(after.states.at(-1)).toBe('closed');
    expect(pageErrors).toEqual([]);
  }, 30_000);
});
