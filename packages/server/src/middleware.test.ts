import { JsonRpcError } from '@jsonrpc-kit/core';
import { describe, expect, it, vi } from 'vitest';
import { createServer } from './server.js';

const req = (method: string, params: unknown = [], id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('middleware', () => {
  it('runs in registration order in, reverse out', async () => {
    const server = createServer();
    const log: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      server.use(async (ctx, next) => {
        log.push(`${name}>${ctx.method}`);
        const result = await next();
        log.push(`<${name}`);
        return result;
      });
    }
    server.method('m', () => {
      log.push('handler');
      return 1;
    });
    expect(await server.handle(req('m'))).toBe('{"jsonrpc":"2.0","id":1,"result":1}');
    expect(log).toEqual(['a>m', 'b>m', 'c>m', 'handler', '<c', '<b', '<a']);
  });

  it('can short-circuit, throw a JsonRpcError, rewrite params and results, share state', async () => {
    const server = createServer();
    const handler = vi.fn((p: number[]) => p[0]);
    server.use(async (ctx, next) => {
      if (ctx.transport.auth !== 'ok') throw new JsonRpcError(-32000, 'Unauthorized');
      ctx.state.set('user', 'ann');
      return next();
    });
    server.use(async (ctx, next) => {
      if (ctx.method === 'cached') return 'from cache';
      ctx.params = [(ctx.params as number[])[0]! * 10];
      const result = (await next()) as number;
      return `${ctx.state.get('user')}:${result + 1}`;
    });
    server.method('m', handler);
    server.method('cached', handler);
    expect(await server.handle(req('m', [4]))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Unauthorized"}}',
    );
    expect(await server.handle(req('m', [4]), { auth: 'ok' })).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"ann:41"}',
    );
    expect(await server.handle(req('cached', [4]), { auth: 'ok' })).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"from cache"}',
    );
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('runs for notifications and unknown methods too', async () => {
    const server = createServer();
    const seen: Array<[string, boolean, unknown]> = [];
    server.use(async (ctx, next) => {
      seen.push([ctx.method, ctx.notification, ctx.id]);
      return next();
    });
    server.notification('n', () => {});
    await server.handle('{"jsonrpc":"2.0","method":"n"}');
    expect(JSON.parse((await server.handle(req('nope')))!).error.code).toBe(-32601);
    expect(seen).toEqual([
      ['n', true, undefined],
      ['nope', false, 1],
    ]);
  });

  it('can be removed, and rejects next() called twice', async () => {
    const server = createServer();
    const dispose = server.use(async (_ctx, next) => {
      await next();
      return next();
    });
    server.method('m', () => 1);
    const answer = JSON.parse((await server.handle(req('m')))!);
    expect(answer.error.code).toBe(-32603);
    dispose();
    expect(await server.handle(req('m'))).toBe('{"jsonrpc":"2.0","id":1,"result":1}');
  });

  it('turns a sync throw from a middleware into an answer', async () => {
    const server = createServer();
    server.use(() => {
      throw new JsonRpcError(7, 'seven');
    });
    expect(await server.handle(req('m'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"seven"}}',
    );
  });
});
