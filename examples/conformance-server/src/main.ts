/**
 * A short tour of the conformance server: starts it in-process on 127.0.0.1, sends the
 * specification's examples over HTTP as raw text and a few over WebSocket, and prints each
 * exchange.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import type { Transport } from '@jsonrpc-kit/core';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws';
import { createConformanceServer } from './methods.js';
import { serveNetwork } from './serve.js';

/** Prints one line. */
export type Log = (line: string) => void;

/** The exchanges `run` sends over HTTP, with what each must answer (raw text). */
export const HTTP_EXCHANGES: ReadonlyArray<readonly [request: string, answer: string | undefined]> =
  [
    [
      '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}',
      '{"jsonrpc":"2.0","id":1,"result":19}',
    ],
    [
      '{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}',
      '{"jsonrpc":"2.0","id":3,"result":19}',
    ],
    ['{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}', undefined],
    [
      '{"jsonrpc":"2.0","method":"foobar","id":"1"}',
      '{"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"Method not found"}}',
    ],
    [
      '[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"get_data","id":"9"}]',
      '[{"jsonrpc":"2.0","id":"1","result":7},{"jsonrpc":"2.0","id":"9","result":["hello",5]}]',
    ],
  ];

function short(text: string, max = 160): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

async function wsExchange(transport: Transport, messages: readonly string[], log: Log) {
  const answers: string[] = [];
  let wake: (() => void) | undefined;
  await transport.start({
    onMessage(message) {
      answers.push(message);
      wake?.();
    },
    onClose() {
      wake?.();
    },
  });
  for (const message of messages) {
    log(`→ ${short(message)}`);
    await transport.send(message);
    const deadline = Date.now() + 5_000;
    while (answers.length === 0) {
      if (Date.now() > deadline) throw new Error('no answer over WebSocket');
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    log(`← ${short(answers.shift()!)}`);
  }
}

/**
 * Runs the tour.
 *
 * @param log - where to print
 * @returns resolves when done
 * @throws Error when an answer differs from the expected one
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(log: Log = console.log): Promise<void> {
  const server = createConformanceServer();
  const listener = await serveNetwork(server, { port: 0 });
  try {
    log(`conformance-server: ${listener.httpUrl} ${listener.wsUrl}`);
    log('HTTP (raw text, POST /rpc):');
    for (const [request, expected] of HTTP_EXCHANGES) {
      log(`→ ${short(request)}`);
      const response = await fetch(listener.httpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: request,
        signal: AbortSignal.timeout(5_000),
      });
      const body = await response.text();
      log(`← ${response.status}${body === '' ? ' (no body)' : ` ${short(body)}`}`);
      if ((expected ?? '') !== body) {
        throw new Error(`unexpected answer to ${request}: ${response.status} ${body}`);
      }
    }
    log('WebSocket (raw text, /ws):');
    const ws = createWebSocketTransport({ url: listener.wsUrl, reconnect: false });
    try {
      await wsExchange(
        ws,
        [
          '{"jsonrpc":"2.0","method":"echo","params":{"hello":"world"},"id":1}',
          '{"jsonrpc":"2.0","method":"fail","params":{"code":1001,"message":"Nope","data":[1]},"id":2}',
        ],
        log,
      );
    } finally {
      await ws.close();
    }
  } finally {
    await listener.close();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
