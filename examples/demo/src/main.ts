/**
 * The demo: every example, end to end, on 127.0.0.1. It runs each example's tour (servers over
 * HTTP, WebSocket and stdio, clients calling them), then spawns the conformance server's built
 * command and calls it over all three transports. Exits 0 when every step passed, 1 otherwise,
 * and fails rather than hangs after a global deadline.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { JsonRpcError } from '@jsonrpc-kit/core';
import { type TapDirection, tapTransport } from '@jsonrpc-kit/core/testing';
import { run as calculatorHttp } from '@jsonrpc-kit/example-calculator-http/main';
import { run as chatWs } from '@jsonrpc-kit/example-chat-ws/main';
import { run as ethApi } from '@jsonrpc-kit/example-eth-api/main';
import { run as lspStdio } from '@jsonrpc-kit/example-lsp-stdio/main';
import { run as lspWsProxy } from '@jsonrpc-kit/example-lsp-ws-proxy/main';
import { run as toolsStdio } from '@jsonrpc-kit/example-tools-stdio/main';
import { createHttpTransport } from '@jsonrpc-kit/transport-http';
import { spawnTransport } from '@jsonrpc-kit/transport-stdio';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws';

/** Prints one line. */
export type Log = (line: string) => void;

/** Prints each message of a tapped transport as `→ text` (sent) or `← text` (received). */
const wire = (log: Log) => (direction: TapDirection, message: string) =>
  log(`${direction === 'sent' ? '→' : '←'} ${message}`);

/** The demo fails if it has not finished after this many milliseconds. */
export const DEMO_TIMEOUT_MS = 30_000;

/** The examples whose tours the demo runs, in order: each package's `run(log)`. */
export const TOURS: ReadonlyArray<readonly [string, (log: Log) => Promise<void>]> = [
  ['calculator-http', calculatorHttp],
  ['chat-ws', chatWs],
  ['eth-api', ethApi],
  ['tools-stdio', toolsStdio],
  ['lsp-stdio', lspStdio],
  ['lsp-ws-proxy', lspWsProxy],
];

/** The conformance server's command, as its package exports it. */
const CONFORMANCE_SERVER: string = createRequire(import.meta.url).resolve(
  '@jsonrpc-kit/example-conformance-server/server',
);

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`conformance-server: ${what}`);
}

/** Spawns `node dist/server.js --port 0` and reads the URLs from its first line. */
async function spawnConformance(log: Log) {
  const script = CONFORMANCE_SERVER;
  log(`spawning node ${script} --port 0`);
  const child = spawn(process.execPath, [script, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no "listening" line within 10 s')), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end !== -1) {
        clearTimeout(timer);
        resolve(out.slice(0, end));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}`));
    });
  });
  log(line);
  const [word, httpUrl, wsUrl] = line.split(' ');
  check(word === 'listening' && httpUrl !== undefined && wsUrl !== undefined, 'first line');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    httpUrl: httpUrl!,
    wsUrl: wsUrl!,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Calls the conformance server's built command over HTTP, WebSocket and stdio.
 *
 * @param log - where to print
 * @returns resolves when done
 * @throws Error when an answer is wrong
 */
export async function conformanceTour(log: Log): Promise<void> {
  const server = await spawnConformance(log);
  try {
    log('HTTP: subtract by position and by name, a batch');
    const http = createClient(
      tapTransport(createHttpTransport({ url: server.httpUrl }), wire(log)),
      {
        callTimeout: 5_000,
      },
    );
    try {
      check((await http.request('subtract', [42, 23])) === 19, 'subtract by position');
      check((await http.request('subtract', { subtrahend: 23, minuend: 42 })) === 19, 'by name');
      const [sum, data, fail] = await http.batch((b) => [
        b.request<number>('sum', [1, 2, 4]),
        b.notify('notify_hello', [7]),
        b.request<[string, number]>('get_data'),
        b.request('fail', { code: 1001, message: 'Nope' }),
      ]);
      check(sum.ok && sum.value === 7, 'sum');
      check(data.ok && data.value[0] === 'hello', 'get_data');
      check(!fail.ok && (fail.error as JsonRpcError).code === 1001, 'fail');
    } finally {
      await http.close();
    }

    log('WebSocket: echo, then a sleep cancelled with $/cancelRequest');
    let cancelledOnWire = false;
    const ws = createClient(
      tapTransport(
        createWebSocketTransport({ url: server.wsUrl, reconnect: false }),
        wire((line) => {
          if (line.startsWith('← ') && line.includes('"code":-32001')) cancelledOnWire = true;
          log(line);
        }),
      ),
      { callTimeout: 5_000, sendCancel: true },
    );
    try {
      const echoed = await ws.request<{ hello: string }>('echo', { hello: 'world' });
      check(echoed.hello === 'world', 'echo');
      const outcome = await ws
        .request('sleep', { ms: 5_000 }, { signal: AbortSignal.timeout(100) })
        .then(
          () => 'finished',
          (error: unknown) => (error as Error).name,
        );
      log(`  the sleep rejected locally with ${outcome}`);
      check(outcome !== 'finished', 'cancelled sleep');
      const deadline = Date.now() + 2_000;
      while (!cancelledOnWire && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      check(cancelledOnWire, 'the server answers the cancelled sleep with -32001');
    } finally {
      await ws.close();
    }

    log('stdio: node dist/server.js --stdio content-length');
    const child = spawnTransport(
      process.execPath,
      [CONFORMANCE_SERVER, '--stdio', 'content-length'],
      { framing: 'content-length' },
    );
    const stdio = createClient(tapTransport(child, wire(log)), { callTimeout: 5_000 });
    try {
      check((await stdio.request('sum', [1, 2, 3])) === 6, 'sum over stdio');
      try {
        await stdio.request('crash');
        check(false, 'crash must fail');
      } catch (error) {
        check(error instanceof JsonRpcError && error.code === -32603, 'crash is -32603');
      }
    } finally {
      await stdio.close();
    }
    const exit = await child.exit;
    log(`  the stdio server exited (code ${exit.code ?? exit.signal})`);
  } finally {
    await server.close();
  }
}

/**
 * Runs the demo.
 *
 * @param log - where to print
 * @returns how many steps failed
 */
export async function demo(log: Log = console.log): Promise<number> {
  let failed = 0;
  const step = async (name: string, body: (log: Log) => Promise<void>) => {
    log('');
    log(`━━ ${name} ━━`);
    const started = Date.now();
    try {
      await body((line) => log(`  ${line}`));
      log(`✔ ${name} (${Date.now() - started} ms)`);
    } catch (error) {
      failed++;
      log(`✘ ${name}: ${(error as Error)?.stack ?? String(error)}`);
    }
  };
  for (const [example, run] of TOURS) {
    await step(example, run);
  }
  await step('conformance-server', conformanceTour);
  log('');
  log(failed === 0 ? 'demo: every step passed' : `demo: ${failed} step(s) failed`);
  return failed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const deadline = setTimeout(() => {
    console.error(`demo: not finished after ${DEMO_TIMEOUT_MS} ms; failing`);
    process.exit(1);
  }, DEMO_TIMEOUT_MS);
  demo(console.log).then(
    (failed) => {
      clearTimeout(deadline);
      process.exit(failed === 0 ? 0 : 1);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
