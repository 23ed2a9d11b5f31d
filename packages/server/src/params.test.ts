import { defineContract, method } from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createServer } from './server.js';

const ok = (id: number | string, result: string): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;

describe('absent params', () => {
  const server = createServer();
  server.method('eth_chainId', (p: []) => `0x${p.length}`, { params: v.tuple([]) });
  server.method('tools/list', (p) => p.cursor ?? 'first', {
    params: v.object({ cursor: v.optional(v.string()) }),
  });
  server.method('page', (p: { size: number }) => p.size, {
    params: v.object({ size: v.optional(v.number(), 10) }),
  });
  server.method('need', (p: { a: number }) => p.a, { params: v.object({ a: v.number() }) });
  server.method('free', (p: unknown) => p === undefined);

  it('are the empty value of the schema: [] by position, {} by name', async () => {
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).toBe(
      ok(1, '"0x0"'),
    );
    expect(await server.handle('{"jsonrpc":"2.0","id":2,"method":"tools/list"}')).toBe(
      ok(2, '"first"'),
    );
    // The schema's defaults apply.
    expect(await server.handle('{"jsonrpc":"2.0","id":3,"method":"page"}')).toBe(ok(3, '10'));
  });

  it('still fail a schema that needs members, and reach a schema-less handler as undefined', async () => {
    const answer = JSON.parse((await server.handle('{"jsonrpc":"2.0","id":5,"method":"need"}'))!);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.data).toEqual([{ path: 'a', message: expect.any(String) }]);
    expect(await server.handle('{"jsonrpc":"2.0","id":6,"method":"free"}')).toBe(ok(6, 'true'));
  });

  it('are empty in batches and in notifications too', async () => {
    const seen: unknown[] = [];
    const s = createServer();
    s.notification('n', (p: []) => void seen.push(p), { params: v.tuple([]) });
    s.method('m', (p: object) => p, { params: v.object({ x: v.optional(v.number()) }) });
    expect(
      await s.handle('[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":1,"method":"m"}]'),
    ).toBe(`[${ok(1, '{}')}]`);
    expect(seen).toEqual([[]]);
  });
});

describe('a tuple schema with parameter names', () => {
  const contract = defineContract({
    getBalance: method({
      params: v.tuple([v.string(), v.optional(v.string(), 'latest')]),
      paramNames: ['address', 'block'],
      result: v.string(),
    }),
  });
  const server = createServer();
  server.implement(contract, { getBalance: ([address, block]) => `${address}@${block}` });
  const call = (params: string): Promise<string | undefined> =>
    server.handle(`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":${params}}`);

  it('accepts params by position, the handler getting the tuple', async () => {
    expect(await call('["0xa","0x1"]')).toBe(ok(1, '"0xa@0x1"'));
    expect(await call('["0xa"]')).toBe(ok(1, '"0xa@latest"'));
  });

  it('accepts params by name, mapped to the positions', async () => {
    expect(await call('{"block":"0x1","address":"0xa"}')).toBe(ok(1, '"0xa@0x1"'));
    expect(await call('{"address":"0xa"}')).toBe(ok(1, '"0xa@latest"'));
  });

  it('refuses unknown names, too many positions and missing required ones (-32602)', async () => {
    for (const params of ['{"address":"0xa","nope":1}', '["0xa","0x1","x"]', '{"block":"0x1"}']) {
      expect(JSON.parse((await call(params))!).error.code).toBe(-32602);
    }
    expect(JSON.parse((await call('{"address":"0xa","nope":1}'))!).error.message).toBe(
      'Invalid params: unknown parameter "nope"',
    );
  });
});
