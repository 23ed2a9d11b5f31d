/**
 * Serves the `lsp-stdio` language server over WebSocket and walks through a session as a
 * browser editor would (the client imports `@jsonrpc-kit/transport-ws/client`, which runs in
 * browsers): initialize, pushed notifications, hover, progress, a cancelled request, the
 * server asking the client for its settings, then shutdown and exit.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { LSP_REQUEST_CANCELLED, lspProfile } from '@jsonrpc-kit/core';
import { type TapDirection, tapTransport } from '@jsonrpc-kit/core/testing';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
import { startLspProxy } from './proxy.js';

/** Prints one line. */
export type Log = (line: string) => void;

/** What the client answers when the server asks for `example.greeting`. */
export const GREETING = 'hello from the browser';

const wire = (log: Log) => (direction: TapDirection, message: string) =>
  log(`${direction === 'sent' ? '→' : '←'} ${message}`);

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`lsp-ws-proxy: ${what}`);
}

async function until(condition: () => boolean, what: string, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`lsp-ws-proxy: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs the example.
 *
 * @param log - where to print
 * @returns resolves when the session is over and the proxy closed
 * @throws Error when a step does not happen as it should
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(log: Log = console.log): Promise<void> {
  const lsp = await startLspProxy({ log: (line) => log(`[proxy] ${line}`) });
  log(`lsp-ws-proxy: ${lsp.url} serves the lsp-stdio language server, one process per socket`);
  const notifications: string[] = [];
  const traffic: string[] = [];
  const asked: unknown[] = [];
  const client = createClient(
    tapTransport(
      createWebSocketTransport({ url: lsp.url, reconnect: false }),
      wire((line) => {
        traffic.push(line);
        log(line);
      }),
    ),
    {
      callTimeout: 5_000,
      profile: lspProfile,
      sendCancel: true,
      onNotification: (notification) => {
        notifications.push(notification.method);
      },
      // The server asks its client for settings: the call crosses the proxy to us.
      onRequest: (request) => {
        asked.push(request.method);
        if (request.method !== 'workspace/configuration') return null;
        return [GREETING];
      },
    },
  );
  try {
    log('1. initialize');
    const init = await client.request<{ capabilities: { hoverProvider?: boolean } }>('initialize', {
      processId: null,
      rootUri: null,
      capabilities: {},
    });
    check(init.capabilities.hoverProvider === true, 'hover capability');
    await client.notify('initialized', {});
    await until(() => notifications.includes('window/logMessage'), 'window/logMessage');

    log('2. didOpen → diagnostics pushed through the proxy; hover');
    await client.notify('textDocument/didOpen', {
      textDocument: { uri: 'file:///a.txt', languageId: 'plaintext', version: 1, text: 'hi TODO' },
    });
    await until(() => notifications.includes('textDocument/publishDiagnostics'), 'diagnostics');
    const hover = await client.request<{ contents: { value: string } } | null>(
      'textDocument/hover',
      { textDocument: { uri: 'file:///a.txt' }, position: { line: 0, character: 1 } },
    );
    check(hover?.contents.value.startsWith('`hi`') === true, 'hover');

    log('3. progress: $/progress from the language server reaches this client');
    const reports: unknown[] = [];
    const counted = await client.request<{ count: number }>(
      'example/slowCount',
      { to: 3, delayMs: 1 },
      { onProgress: (value) => reports.push(value) },
    );
    check(counted.count === 3 && reports.length === 3, 'three progress reports');

    log('4. a slow request, cancelled after 100 ms: $/cancelRequest crosses the proxy');
    const controller = new AbortController();
    const slow = client.request(
      'example/slowCount',
      { to: 1_000, delayMs: 10 },
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 100);
    const outcome = await slow.then(
      () => 'finished',
      (error: unknown) => (error as Error).name,
    );
    check(outcome === 'AbortError', 'the cancelled call rejects');
    await until(
      () =>
        traffic.some(
          (line) => line.startsWith('← ') && line.includes(`"code":${LSP_REQUEST_CANCELLED}`),
        ),
      'the cancelled call to be answered -32800',
    );

    log('5. the server asks this client workspace/configuration (server → client)');
    const greeting = await client.request<{ greeting: string }>('example/greeting');
    check(greeting.greeting === GREETING && asked.includes('workspace/configuration'), 'greeting');

    log('6. shutdown, exit: the language server exits and the proxy closes the socket');
    await client.request('shutdown');
    await client.notify('exit');
    await Promise.race([
      client.closed,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('lsp-ws-proxy: the socket stayed open')), 5_000),
      ),
    ]);
    await until(() => lsp.running() === 0, 'the language server to exit');
  } finally {
    await client.close();
    await lsp.close();
  }
  log('lsp-ws-proxy: session over, no language server left running');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run(console.log).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
