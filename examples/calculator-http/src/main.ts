/**
 * The calculator, end to end: starts the server in-process on 127.0.0.1, calls it with a
 * client over HTTP (plain requests, a batch, the typed proxy, an application error), and prints
 * curl commands to try by hand.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { JsonRpcError } from '@jsonrpc-kit/core';
import { type TapDirection, tapTransport } from '@jsonrpc-kit/core/testing';
import { createHttpTransport, listen } from '@jsonrpc-kit/transport-http';
import { createCalculatorServer } from './calculator.js';
import { calculator, DIVISION_BY_ZERO } from './contract.js';

/** Prints one line. */
export type Log = (line: string) => void;

/** Prints each message of a tapped transport as `→ text` (sent) or `← text` (received). */
const wire = (log: Log) => (direction: TapDirection, message: string) =>
  log(`${direction === 'sent' ? '→' : '←'} ${message}`);

/** The port the printed curl commands use when the server is started by hand. */
export const HAND_PORT = 8545;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`calculator-http: ${what}`);
}

/**
 * The curl commands that try the calculator by hand.
 *
 * @param url - the server's URL
 * @returns one command per line
 */
export function curlCommands(url: string): string[] {
  const curl = (body: string) => `curl -s -H 'content-type: application/json' -d '${body}' ${url}`;
  return [
    curl('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}'),
    curl('{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":2}'),
    curl('{"jsonrpc":"2.0","method":"divide","params":{"dividend":1,"divisor":0},"id":3}'),
    curl(
      '[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}]',
    ),
  ];
}

/**
 * Runs the example: server and client in this process.
 *
 * @param log - where to print
 * @param options - `keepOpen: true` leaves the server running for the curl commands (`--serve`)
 * @returns resolves when done
 * @throws Error when an answer is not what the calculator must answer
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(
  log: Log = console.log,
  options: { keepOpen?: boolean } = {},
): Promise<void> {
  const server = createCalculatorServer();
  const http = await listen(server, { port: 0 });
  const client = createClient(tapTransport(createHttpTransport({ url: http.url }), wire(log)), {
    callTimeout: 5_000,
  });
  try {
    log(`calculator-http: listening on ${http.url}`);

    log('client.request("add", [1, 2])');
    check((await client.request<number>('add', [1, 2])) === 3, 'add');

    log('typed proxy: calc.add(2, 3), calc.subtract({ minuend: 42, subtrahend: 23 })');
    const calc = client.contract(calculator);
    check((await calc.add(2, 3)) === 5, 'calc.add');
    check((await calc.subtract({ minuend: 42, subtrahend: 23 })) === 19, 'calc.subtract');

    log('by position: client.contract(calculator, { params: "byPosition" }).subtract(...)');
    const positional = client.contract(calculator, { params: 'byPosition' });
    check((await positional.subtract({ minuend: 23, subtrahend: 42 })) === -19, 'by position');

    log('application error: calc.divide({ dividend: 1, divisor: 0 })');
    try {
      await calc.divide({ dividend: 1, divisor: 0 });
      check(false, 'divide by zero must fail');
    } catch (error) {
      check(error instanceof JsonRpcError && error.code === DIVISION_BY_ZERO, 'error 1001');
      log(`  caught JsonRpcError ${(error as JsonRpcError).code}: ${(error as Error).message}`);
    }

    log('batch: add, divide by zero, notify');
    const [sum, quotient] = await client.batch((b) => [
      b.request<number>('add', [10, 20]),
      b.request<number>('divide', { dividend: 1, divisor: 0 }),
      b.notify('add', [0, 0]),
    ]);
    check(sum.ok && sum.value === 30, 'batch add');
    check(
      !quotient.ok && (quotient.error as JsonRpcError).code === DIVISION_BY_ZERO,
      'batch divide',
    );

    if (options.keepOpen) {
      log(`the server keeps running on ${http.url} (Ctrl+C stops it); try it by hand:`);
      for (const line of curlCommands(http.url)) log(`  ${line}`);
    } else {
      log(`try it by hand: node dist/server.js --port ${HAND_PORT}, then`);
      for (const line of curlCommands(`http://127.0.0.1:${HAND_PORT}/`)) log(`  ${line}`);
    }
  } finally {
    await client.close();
    if (!options.keepOpen) await http.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run(console.log, { keepOpen: process.argv.includes('--serve') }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
