import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { ethereumSubscriptions } from '@jsonrpc-kit/core';
import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { firstLine } from '../../../tests/support/first-line.js';
import { run } from '../src/main.js';

const SERVER_JS = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'server.js');

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('eth-api', () => {
  it('run() goes through its steps', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    expect(lines.at(-1)).toBe('unsubscribed; the server holds no subscription');
    expect(lines.filter((l) => l.startsWith('new head'))).toHaveLength(3);
  });

  it('the bin prints its URLs first and serves HTTP and WebSocket on one port', async () => {
    const child = spawn(process.execPath, [SERVER_JS, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const line = await firstLine(child);
    const match = /^listening http:\/\/127\.0\.0\.1:(\d+)\/ ws:\/\/127\.0\.0\.1:\1\/$/.exec(line);
    expect(match).not.toBeNull();
    const port = match![1];
    const answer = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000001","latest"]}]',
    });
    expect(await answer.text()).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"0x7a69"},{"jsonrpc":"2.0","id":2,"result":"0xde0b6b3a7640000"}]',
    );
    const client = createClient(createWebSocketTransport({ url: `ws://127.0.0.1:${port}/` }), {
      subscriptionDialect: ethereumSubscriptions,
    });
    try {
      const heads: bigint[] = [];
      const sub = client.subscribe<{ number: string }>('newHeads', [], {
        onItem: (head) => {
          heads.push(BigInt(head.number));
        },
      });
      await sub.ready;
      for (let i = 0; i < 400 && heads.length < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(heads.length).toBeGreaterThanOrEqual(4);
      expect(heads[1]! > heads[0]!).toBe(true);
      const blockNumber = await client.request<string>('eth_blockNumber');
      expect(BigInt(blockNumber) >= heads[0]!).toBe(true);
      await sub.unsubscribe();
    } finally {
      await client.close();
    }
  });
});
