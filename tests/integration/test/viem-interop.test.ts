/**
 * viem against a kit HTTP server: viem leaves `params` out for calls without arguments
 * (`eth_chainId`, `eth_blockNumber`), which the spec allows.
 */
import { createClient } from '@jsonrpc-kit/client';
import { defineContract, method } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createHttpTransport, type HttpListener, listen } from '@jsonrpc-kit/transport-http/node';
import * as v from 'valibot';
import { createPublicClient, http } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';

const eth = defineContract({
  eth_chainId: method({ params: v.tuple([]), result: v.string() }),
  eth_blockNumber: method({ params: v.tuple([]), result: v.string() }),
  eth_getBalance: method({
    params: v.tuple([v.string(), v.optional(v.string(), 'latest')]),
    paramNames: ['address', 'block'],
    result: v.string(),
  }),
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A kit server on 127.0.0.1 that records every request body it receives. */
async function serveEth(): Promise<{ listener: HttpListener; bodies: string[] }> {
  const server = createServer();
  server.implement(eth, {
    eth_chainId: () => '0x1',
    eth_blockNumber: () => '0x10',
    eth_getBalance: ([address, block]) => (address === '0xa' && block === 'latest' ? '0x5' : '0x0'),
  });
  const bodies: string[] = [];
  server.use(async (ctx, next) => {
    bodies.push(JSON.stringify({ method: ctx.method, params: ctx.params }));
    return next();
  });
  const listener = await listen(server, { host: '127.0.0.1', port: 0 });
  cleanups.push(() => listener.close());
  return { listener, bodies };
}

describe('viem public client → kit HTTP server', () => {
  it('answers getChainId() and getBlockNumber(), sent without params', async () => {
    const { listener, bodies } = await serveEth();
    const viem = createPublicClient({ transport: http(listener.url, { retryCount: 0 }) });
    expect(await viem.getChainId()).toBe(1);
    expect(await viem.getBlockNumber({ cacheTime: 0 })).toBe(16n);
    // viem really sent no params member: the server read them as [].
    expect(bodies).toEqual(['{"method":"eth_chainId"}', '{"method":"eth_blockNumber"}']);
  });

  it('answers a raw request without params with the result, not -32602', async () => {
    const { listener } = await serveEth();
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
    });
    expect(await response.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
  });
});

describe('kit contract proxy → kit HTTP server, a tuple schema with paramNames', () => {
  for (const style of ['byName', 'byPosition'] as const) {
    it(`calls with optional arguments left out (${style})`, async () => {
      const { listener, bodies } = await serveEth();
      const client = createClient(createHttpTransport({ url: listener.url }));
      cleanups.push(() => client.close());
      const api = client.contract(eth, { params: style });
      expect(await api.eth_chainId()).toBe('0x1');
      expect(await api.eth_getBalance('0xa')).toBe('0x5');
      expect(await api.eth_getBalance('0xa', undefined)).toBe('0x5');
      expect(await api.eth_getBalance('0xa', 'latest')).toBe('0x5');
      expect(await api.eth_getBalance('0xb', '0x1')).toBe('0x0');
      const sent = style === 'byName' ? '{"address":"0xa"}' : '["0xa"]';
      expect(bodies.slice(0, 3)).toEqual([
        '{"method":"eth_chainId"}',
        `{"method":"eth_getBalance","params":${sent}}`,
        `{"method":"eth_getBalance","params":${sent}}`,
      ]);
    });
  }
});
