import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { LSP_REQUEST_CANCELLED, lspProfile } from '@jsonrpc-kit/core';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import { afterEach, describe, expect, it } from 'vitest';
import { GREETING, run } from '../src/main.js';
import { startLspProxy } from '../src/proxy.js';

const SERVER_JS = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'server.js');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('lsp-ws-proxy', () => {
  it('run(): the whole session passes through the proxy', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    expect(lines.at(-1)).toBe('lsp-ws-proxy: session over, no language server left running');
    expect(lines.some((line) => line.startsWith('← ') && line.includes('"$/progress"'))).toBe(true);
    expect(lines.some((line) => line.includes('"method":"workspace/configuration"'))).toBe(true);
  });

  it('a kit client over WebSocket: initialize, a request, a cancelled request, a server → client call', async () => {
    const lsp = await startLspProxy();
    cleanups.push(() => lsp.close());
    const configuration: unknown[] = [];
    const client = createClient(createWebSocketTransport({ url: lsp.url, reconnect: false }), {
      profile: lspProfile,
      sendCancel: true,
      callTimeout: 5_000,
      onRequest: (request) => {
        configuration.push(request.params);
        return ['hi'];
      },
    });
    cleanups.push(() => client.close());
    const init = await client.request<{ serverInfo: { name: string } }>('initialize', {
      capabilities: {},
    });
    expect(init.serverInfo.name).toBe('jsonrpc-kit-lsp-stdio');
    expect(await client.request('example/slowCount', { to: 2, delayMs: 1 })).toEqual({ count: 2 });
    const controller = new AbortController();
    const slow = client.request(
      'example/slowCount',
      { to: 1_000, delayMs: 10 },
      {
        signal: controller.signal,
      },
    );
    await sleep(50);
    controller.abort();
    await expect(slow).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await client.request('example/greeting')).toEqual({ greeting: 'hi' });
    expect(configuration).toEqual([{ items: [{ section: 'example.greeting' }] }]);
    expect(lsp.running()).toBe(1);
    await client.close();
    for (let i = 0; i < 200 && lsp.running() > 0; i++) await sleep(10);
    expect(lsp.running()).toBe(0);
  });

  it('raw frames: the cancelled call is answered -32800 by the proxy', async () => {
    const lsp = await startLspProxy();
    cleanups.push(() => lsp.close());
    // The WebSocket client transport as a raw pipe: text in, text out, no client on top.
    const socket = createWebSocketTransport({ url: lsp.url, reconnect: false });
    cleanups.push(() => socket.close());
    const frames: string[] = [];
    await socket.start({ onMessage: (text) => frames.push(text), onClose: () => {} });
    const next = async (): Promise<string> => {
      for (let i = 0; i < 400 && frames.length === 0; i++) await sleep(5);
      const frame = frames.shift();
      if (frame === undefined) throw new Error('no frame');
      return frame;
    };
    await socket.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}',
    );
    expect(await next()).toContain('"id":1,"result":{"capabilities"');
    await socket.send(
      '{"jsonrpc":"2.0","id":2,"method":"example/slowCount","params":{"to":1000,"delayMs":10}}',
    );
    await sleep(50);
    await socket.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}');
    expect(await next()).toBe(
      `{"jsonrpc":"2.0","id":2,"error":{"code":${LSP_REQUEST_CANCELLED},"message":"Request cancelled"}}`,
    );
    await socket.send('{"jsonrpc":"2.0","id":3,"method":"example/greeting"}');
    const ask = JSON.parse(await next()) as { id: number; method: string };
    expect(ask.method).toBe('workspace/configuration');
    await socket.send(`{"jsonrpc":"2.0","id":${ask.id},"result":["${GREETING}"]}`);
    expect(await next()).toBe(`{"jsonrpc":"2.0","id":3,"result":{"greeting":"${GREETING}"}}`);
  });

  it('a 2 MiB didOpen passes through, as over stdio: the proxy carries what the upstream does', async () => {
    const lsp = await startLspProxy();
    cleanups.push(() => lsp.close());
    expect(lsp.proxy.maxMessageBytes).toBe(16 * 1024 * 1024);
    const diagnostics: { uri: string; diagnostics: unknown[] }[] = [];
    const errors: Error[] = [];
    const client = createClient(createWebSocketTransport({ url: lsp.url, reconnect: false }), {
      profile: lspProfile,
      callTimeout: 10_000,
      onRequest: () => ['hi'],
      onNotification: (notification) => {
        if (notification.method === 'textDocument/publishDiagnostics') {
          diagnostics.push(notification.params as { uri: string; diagnostics: unknown[] });
        }
      },
      onError: (error) => errors.push(error),
    });
    cleanups.push(() => client.close());
    await client.request('initialize', { capabilities: {} });
    // 2 MiB of text with one TODO at its end: the diagnostic proves the server read all of it.
    const text = `${'x'.repeat(2 * 1024 * 1024)}\n// TODO: the end\n`;
    await client.notify('textDocument/didOpen', {
      textDocument: { uri: 'file:///big.ts', languageId: 'typescript', version: 1, text },
    });
    for (let i = 0; i < 1000 && diagnostics.length === 0; i++) await sleep(10);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.uri).toBe('file:///big.ts');
    expect(diagnostics[0]!.diagnostics).toHaveLength(1);
    // The socket is still open.
    expect(await client.request('example/slowCount', { to: 1, delayMs: 1 })).toEqual({ count: 1 });
    expect(errors).toEqual([]);
  });

  it('node dist/server.js --port 0 prints its URL first', async () => {
    const child = spawn(process.execPath, [SERVER_JS, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('no URL within 10 s')), 10_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve(out.slice(0, out.indexOf('\n')));
        }
      });
    });
    expect(line).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/);
  });
});
