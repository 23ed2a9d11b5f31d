/**
 * The Ethereum-style API, end to end: starts the chain on 127.0.0.1, asks for the chain id and
 * a balance over HTTP, subscribes to `newHeads` over WebSocket with the kit's client, prints three
 * heads, unsubscribes and checks the server holds no subscription any more.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { ethereumSubscriptions } from '@jsonrpc-kit/core';
import { createHttpTransport } from '@jsonrpc-kit/transport-http';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws';
import { type BlockHeader, createEthApi } from './chain.js';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`eth-api: ${what}`);
}

/**
 * Runs the example.
 *
 * @param log - where to print
 * @returns resolves when done
 * @throws Error when a step does not happen as it must
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(log: (line: string) => void = console.log): Promise<void> {
  const api = createEthApi();
  const port = await api.listen(0, '127.0.0.1');
  log(`eth-api: listening http://127.0.0.1:${port}/ ws://127.0.0.1:${port}/`);
  const http = createClient(createHttpTransport({ url: `http://127.0.0.1:${port}/` }));
  const ws = createClient(createWebSocketTransport({ url: `ws://127.0.0.1:${port}/` }), {
    subscriptionDialect: ethereumSubscriptions,
  });
  try {
    const chainId = await http.request<string>('eth_chainId');
    const balance = await http.request<string>('eth_getBalance', [
      '0x00000000000000000000000000000000000f4240',
      'latest',
    ]);
    log(`eth_chainId ${Number(chainId)}, eth_getBalance ${BigInt(balance) / 10n ** 18n} ETH`);
    const heads = ws.subscribe<BlockHeader>('newHeads');
    log(`subscribed to newHeads as ${await heads.ready}`);
    let seen = 0;
    for await (const head of heads) {
      log(`new head ${Number(head.number)}`);
      if (++seen === 3) break; // leaving the loop unsubscribes
    }
    check(api.subscriptions.count() === 0, 'the server still holds a subscription');
    log('unsubscribed; the server holds no subscription');
  } finally {
    await Promise.all([http.close(), ws.close()]);
    await api.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run(console.log).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
