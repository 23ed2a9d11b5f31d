/**
 * Starts the language server as a child process over stdio (Content-Length framing, as LSP)
 * and walks through a session: initialize, a log message and diagnostics pushed by the server,
 * hover, a slow request cancelled with `$/cancelRequest`, then shutdown and exit.
 *
 * @module
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { LSP_REQUEST_CANCELLED, lspProfile } from '@jsonrpc-kit/core';
import { type TapDirection, tapTransport } from '@jsonrpc-kit/core/testing';
import { spawnTransport } from '@jsonrpc-kit/transport-stdio';

/** Prints one line. */
export type Log = (line: string) => void;

/** Prints each message of a tapped transport as `→ text` (sent) or `← text` (received). */
const wire = (log: Log) => (direction: TapDirection, message: string) =>
  log(`${direction === 'sent' ? '→' : '←'} ${message}`);

/** The built server this example spawns. */
export const SERVER_JS: string = fileURLToPath(new URL('../dist/server.js', import.meta.url));

/** The document the session opens. */
export const DOCUMENT = { uri: 'file:///example.txt', text: 'hello world\nTODO: say more\n' };

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`lsp-stdio: ${what}`);
}

async function until(condition: () => boolean, what: string, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`lsp-stdio: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs the example.
 *
 * @param log - where to print
 * @returns resolves when the server has exited
 * @throws Error when a step does not happen as LSP says
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(log: Log = console.log): Promise<void> {
  log(`lsp-stdio: spawning node ${SERVER_JS} (Content-Length framing)`);
  const child = spawnTransport(process.execPath, [SERVER_JS], {
    framing: 'content-length',
    stderr: 'ignore',
  });
  const notifications: string[] = [];
  const traffic: string[] = [];
  const client = createClient(
    tapTransport(
      child,
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
    },
  );
  try {
    log('1. initialize');
    const init = await client.request<{ capabilities: { hoverProvider?: boolean } }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    check(init.capabilities.hoverProvider === true, 'hover capability');

    log('2. initialized → the server logs a message (window/logMessage)');
    await client.notify('initialized', {});
    await until(() => notifications.includes('window/logMessage'), 'window/logMessage');

    log('3. didOpen → the server pushes diagnostics (textDocument/publishDiagnostics)');
    await client.notify('textDocument/didOpen', {
      textDocument: { ...DOCUMENT, languageId: 'plaintext', version: 1 },
    });
    await until(() => notifications.includes('textDocument/publishDiagnostics'), 'diagnostics');

    log('4. hover');
    const hover = await client.request<{ contents: { value: string } } | null>(
      'textDocument/hover',
      { textDocument: { uri: DOCUMENT.uri }, position: { line: 0, character: 8 } },
    );
    check(hover?.contents.value.startsWith('`world`') === true, 'hover');

    log('5. a slow request, cancelled after 100 ms ($/cancelRequest)');
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
    log(`  the call rejected locally with ${outcome}`);
    check(outcome === 'AbortError', 'the cancelled call rejects');

    await until(
      () =>
        traffic.some(
          (line) => line.startsWith('← ') && line.includes(`"code":${LSP_REQUEST_CANCELLED}`),
        ),
      'the server to answer the cancelled call',
    );
    log(
      `  the server stopped counting and answered ${LSP_REQUEST_CANCELLED} (the client drops it: the call is settled)`,
    );

    log('6. the same request, not cancelled: it finishes');
    const done = await client.request<{ count: number }>('example/slowCount', {
      to: 3,
      delayMs: 1,
    });
    check(done.count === 3, 'slowCount finishes');

    log('7. shutdown, exit');
    await client.request('shutdown');
    await client.notify('exit');
  } catch (error) {
    await client.close();
    throw error;
  }
  const exit = await child.exit;
  await client.close();
  log(`server exited with code ${exit.code}`);
  check(exit.code === 0, 'exit code 0 after shutdown');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run(console.log).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
