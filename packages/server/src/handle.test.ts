import { getEventListeners } from 'node:events';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  InvalidParamsError,
  JsonRpcError,
  type StandardSchemaV1,
  serializeError,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import type { ServerErrorInfo } from './options.js';
import { createServer } from './server.js';

const req = (method: string, params?: unknown, id: unknown = 1): string =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );

describe('handle(): size limit', () => {
  it('answers -32004 with the request id over maxMessageBytes, counting UTF-8 bytes', async () => {
    const server = createServer({ maxMessageBytes: 67 });
    server.method('echo', (p: unknown) => p);
    const base = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["';
    const fits = (s: string) => `${base}${s}"]}`;
    const tooLarge =
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"Request too large","data":{"maxRequestBytes":67}}}';
    // 54 bytes of envelope + 13 ASCII = 67 bytes: accepted
    expect(fits('a'.repeat(13)).length).toBe(67);
    expect(await server.handle(fits('a'.repeat(13)))).toContain('"result"');
    expect(await server.handle(fits('a'.repeat(14)))).toBe(tooLarge);
    // "é" is 2 bytes: 6 of them + 1 ASCII = 13 bytes fits, 7 of them (14 bytes) does not
    expect(await server.handle(fits('é'.repeat(6) + 'a'))).toContain('"result"');
    expect(await server.handle(fits('é'.repeat(7)))).toBe(tooLarge);
    // "€" is 3 bytes, "😀" 4 bytes (two UTF-16 units)
    expect(await server.handle(fits('€'.repeat(4) + 'a'))).toContain('"result"');
    expect(await server.handle(fits('€'.repeat(4) + 'ab'))).toBe(tooLarge);
    expect(await server.handle(fits('😀'.repeat(3) + 'a'))).toContain('"result"');
    expect(await server.handle(fits('😀'.repeat(3) + 'ab'))).toBe(tooLarge);
  });

  it('applies the limit the transport gives in the context instead of its own', async () => {
    const server = createServer({ maxMessageBytes: 100 });
    expect(server.maxMessageBytes).toBe(100);
    expect(createServer().maxMessageBytes).toBeUndefined();
    server.method('echo', (p: unknown) => p);
    const text = req('echo', ['x'.repeat(200)], 1);
    expect(await server.handle(text)).toContain('-32004');
    expect(await server.handle(text, { maxMessageBytes: 1000 })).toContain('"result"');
    expect(await server.handle(text, { maxMessageBytes: 50 })).toContain('-32004');
  });

  it('checks the size before parsing (not JSON, but too large, is -32004)', async () => {
    const server = createServer({ maxMessageBytes: 10 });
    expect(JSON.parse((await server.handle('x'.repeat(11)))!)).toMatchObject({
      id: null,
      error: { code: -32004 },
    });
    expect(JSON.parse((await server.handle('x'.repeat(10)))!)).toMatchObject({
      error: { code: -32700 },
    });
  });

  it('defaults to 1 MiB', async () => {
    const server = createServer();
    server.method('n', (p: string[]) => p[0]!.length);
    const body = (n: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"n","params":["${'a'.repeat(n)}"]}`;
    const envelope = body(0).length;
    expect(await server.handle(body(DEFAULT_MAX_MESSAGE_BYTES - envelope))).toBe(
      `{"jsonrpc":"2.0","id":1,"result":${DEFAULT_MAX_MESSAGE_BYTES - envelope}}`,
    );
    expect(await server.handle(body(DEFAULT_MAX_MESSAGE_BYTES - envelope + 1))).toContain('-32004');
  });
});

describe('handle(): batches', () => {
  it('answers one -32003 with id null over maxBatchSize, and accepts exactly the limit', async () => {
    const server = createServer({ maxBatchSize: 3 });
    const calls = vi.fn(() => 1);
    server.method('one', calls);
    const batch = (n: number) =>
      `[${Array.from({ length: n }, (_, i) => req('one', [], i)).join(',')}]`;
    expect(await server.handle(batch(4))).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"Batch too large"}}',
    );
    expect(calls).not.toHaveBeenCalled();
    expect(JSON.parse((await server.handle(batch(3)))!)).toHaveLength(3);
  });

  it('echoes every exact id of a batch, and refuses an over-long one of exact ids at once', async () => {
    const server = createServer({ maxBatchSize: 100 });
    server.method('one', () => 1);
    const batch = (n: number) =>
      `[${Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","method":"one","id":${i}.5}`).join(',')}]`;
    const answer = JSON.parse(
      (await server.handle(batch(100)))!.replace(/"id":([\d.]+)/g, '"id":"$1"'),
    );
    expect(answer.map((a: { id: string }) => a.id)).toEqual(
      Array.from({ length: 100 }, (_, i) => `${i}.5`),
    );
    expect(await server.handle(batch(20_000))).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"Batch too large"}}',
    );
  });

  it('keeps request order whatever order members finish in, with no entry for notifications', async () => {
    const server = createServer();
    server.method('sleep', async (p: [number]) => {
      await new Promise((r) => setTimeout(r, p[0]));
      return p[0];
    });
    const text = `[${req('sleep', [30], 'a')},{"jsonrpc":"2.0","method":"sleep","params":[1]},${req('sleep', [1], 'b')},${req('sleep', [15], 'c')}]`;
    expect(await server.handle(text)).toBe(
      '[{"jsonrpc":"2.0","id":"a","result":30},{"jsonrpc":"2.0","id":"b","result":1},{"jsonrpc":"2.0","id":"c","result":15}]',
    );
  });

  it('answers responses sent to handle() with -32600 (nothing to correlate)', async () => {
    const server = createServer();
    expect(await server.handle('{"jsonrpc":"2.0","id":5,"result":1}')).toBe(
      '{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: a response cannot be answered"}}',
    );
  });

  it('answers a mixed batch of invalid members one by one', async () => {
    const server = createServer();
    server.method('ok', () => true);
    const answer = JSON.parse(
      (await server.handle(
        '[null,{"jsonrpc":"1.0","id":1,"method":"ok"},{"jsonrpc":"2.0","id":{},"method":"ok"},{"jsonrpc":"2.0","id":2,"method":"ok","params":1},{"jsonrpc":"2.0","id":3,"method":"ok"}]',
      ))!,
    );
    expect(answer).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32602, message: 'Invalid params: params must be an array or an object' },
      },
      { jsonrpc: '2.0', id: 3, result: true },
    ]);
  });
});

describe('handle(): errors', () => {
  it('passes JsonRpcError through with its data', async () => {
    const server = createServer();
    server.method('fail', () => {
      throw new JsonRpcError(1001, 'Division by zero', { dividend: 1 });
    });
    server.method('failAsync', async () => {
      throw new InvalidParamsError('bad b', [{ path: 'b', message: 'zero' }]);
    });
    expect(await server.handle(req('fail'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"Division by zero","data":{"dividend":1}}}',
    );
    expect(await server.handle(req('failAsync'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad b","data":[{"path":"b","message":"zero"}]}}',
    );
  });

  it('hides anything else behind -32603 "Internal error" and reports it', async () => {
    const errors: Array<[unknown, ServerErrorInfo]> = [];
    const server = createServer({ onError: (e, info) => errors.push([e, info]) });
    const secret = new Error('secret path /etc/passwd');
    server.method('boom', () => {
      throw secret;
    });
    server.method('boomAsync', () => Promise.reject('a string'));
    server.method('throwNull', () => {
      throw null;
    });
    const internal = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}';
    expect(await server.handle(req('boom'))).toBe(internal);
    expect(await server.handle(req('boomAsync'))).toBe(internal);
    expect(await server.handle(req('throwNull'))).toBe(internal);
    const failed = { kind: 'handler-failed', level: 'error', id: 1, notification: false };
    expect(errors).toEqual([
      [secret, { ...failed, method: 'boom' }],
      ['a string', { ...failed, method: 'boomAsync' }],
      [null, { ...failed, method: 'throwNull' }],
    ]);
  });

  it('shows the message and stack with exposeErrorDetails', async () => {
    const server = createServer({ exposeErrorDetails: true });
    server.method('boom', () => {
      throw new Error('kaputt');
    });
    server.method('str', () => {
      throw 'plain';
    });
    const answer = JSON.parse((await server.handle(req('boom')))!);
    expect(answer.error.code).toBe(-32603);
    expect(answer.error.message).toBe('kaputt');
    expect(answer.error.data.stack).toContain('kaputt');
    expect(JSON.parse((await server.handle(req('str')))!).error).toEqual({
      code: -32603,
      message: 'Internal error: plain',
    });
  });

  it('answers undefined results with null', async () => {
    const server = createServer();
    server.method('nothing', () => undefined);
    server.method('nothingAsync', async () => {});
    expect(await server.handle(req('nothing'))).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
    expect(await server.handle(req('nothingAsync'))).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it('answers unserializable results (BigInt, cycles) with -32603', async () => {
    const onError = vi.fn();
    const server = createServer({ onError });
    server.method('big', () => 1n);
    server.method('cycle', () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    });
    for (const m of ['big', 'cycle']) {
      expect(JSON.parse((await server.handle(req(m)))!)).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'Internal error: result is not serializable as JSON' },
      });
    }
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it('reports errors of notifications and never answers them', async () => {
    const errors: Array<[unknown, ServerErrorInfo]> = [];
    const server = createServer({
      onError: (e, info) => errors.push([e, info]),
      onErrorLevel: 'debug',
    });
    const boom = new Error('boom');
    server.notification('sync', () => {
      throw boom;
    });
    server.notification('async', async () => {
      throw new JsonRpcError(5, 'five');
    });
    expect(await server.handle('{"jsonrpc":"2.0","method":"sync"}')).toBe(undefined);
    expect(await server.handle('{"jsonrpc":"2.0","method":"async"}')).toBe(undefined);
    expect(await server.handle('{"jsonrpc":"2.0","method":"missing"}')).toBe(undefined);
    expect(await server.handle('{"jsonrpc":"2.0","method":"sync","params":5}')).toBe(undefined);
    expect(errors.map(([e, info]) => [(e as { code?: unknown }).code ?? e, info])).toEqual([
      [boom, { kind: 'notification-failed', level: 'error', method: 'sync', notification: true }],
      [5, { kind: 'notification-failed', level: 'warn', method: 'async', notification: true }],
      [
        -32601,
        { kind: 'unknown-notification', level: 'debug', method: 'missing', notification: true },
      ],
      [-32602, { kind: 'invalid-message', level: 'warn', method: 'sync', notification: true }],
    ]);
  });

  it('keeps unknown notifications from onError at the default level', async () => {
    const errors: Array<[unknown, ServerErrorInfo]> = [];
    const server = createServer({ onError: (e, info) => errors.push([e, info]) });
    server.notification('boom', () => {
      throw new Error('boom');
    });
    expect(await server.handle('{"jsonrpc":"2.0","method":"$/setTrace","params":{}}')).toBe(
      undefined,
    );
    expect(errors).toEqual([]);
    await server.handle('{"jsonrpc":"2.0","method":"boom"}');
    expect(errors.map(([, info]) => info.kind)).toEqual(['notification-failed']);
    expect(() => createServer({ onErrorLevel: 'loud' as 'warn' })).toThrow(RangeError);
  });

  it('survives an onError hook that throws', async () => {
    const server = createServer({
      onError: () => {
        throw new Error('hook');
      },
    });
    server.method('boom', () => {
      throw new Error('x');
    });
    expect(await server.handle(req('boom'))).toContain('-32603');
  });

  it('ignores the cancellation notification over handle()', async () => {
    const onError = vi.fn();
    const server = createServer({ onError });
    expect(
      await server.handle('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}'),
    ).toBe(undefined);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('handle(): params', () => {
  it('maps positional params to names from a paramNames list', async () => {
    const server = createServer();
    server.method('sub', (p: { a: number; b: number }) => p.a - p.b, { paramNames: ['a', 'b'] });
    expect(await server.handle(req('sub', [5, 3]))).toBe('{"jsonrpc":"2.0","id":1,"result":2}');
    expect(await server.handle(req('sub', { b: 3, a: 5 }))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":2}',
    );
    expect(JSON.parse((await server.handle(req('sub', [1, 2, 3])))!).error).toEqual({
      code: -32602,
      message: 'Invalid params: expected at most 2 positional params, got 3',
    });
  });

  it('answers schema failures with -32602 and the issues in data', async () => {
    const server = createServer();
    server.method('div', (p: { a: number; b: number }) => p.a / p.b, {
      params: v.object({ a: v.number(), b: v.pipe(v.number(), v.notValue(0, 'b must not be 0')) }),
    });
    expect(await server.handle(req('div', { a: 1, b: 2 }))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":0.5}',
    );
    expect(await server.handle(req('div', [1, 4]))).toBe('{"jsonrpc":"2.0","id":1,"result":0.25}');
    const answer = JSON.parse((await server.handle(req('div', { a: 1, b: 0 })))!);
    expect(answer.error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: [{ path: 'b', message: 'b must not be 0' }],
    });
    const missing = JSON.parse((await server.handle(req('div', [1])))!);
    expect(missing.error.code).toBe(-32602);
    expect(missing.error.data[0].path).toBe('b');
    expect(JSON.parse((await server.handle(req('div')))!).error.code).toBe(-32602);
  });

  it('passes the schema output (transformed) to the handler', async () => {
    const server = createServer();
    server.method('len', (p: { s: number }) => p.s, {
      params: v.object({
        s: v.pipe(
          v.string(),
          v.transform((s) => s.length),
        ),
      }),
    });
    expect(await server.handle(req('len', ['abcd']))).toBe('{"jsonrpc":"2.0","id":1,"result":4}');
  });

  it('answers by-name params to a tuple schema with -32602', async () => {
    const server = createServer();
    server.method('add', (p: [number, number]) => p[0] + p[1], {
      params: v.tuple([v.number(), v.number()]),
    });
    expect(await server.handle(req('add', [1, 2]))).toBe('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(JSON.parse((await server.handle(req('add', { a: 1, b: 2 })))!).error.code).toBe(-32602);
  });

  it('supports async schemas', async () => {
    const server = createServer();
    const schema: StandardSchemaV1<unknown, number> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value) =>
          typeof value === 'object' && Array.isArray(value) && typeof value[0] === 'number'
            ? { value: value[0] * 2 }
            : { issues: [{ message: 'need a number', path: [0] }] },
      },
    };
    server.method('double', (n: number) => n, { params: schema });
    expect(await server.handle(req('double', [21]))).toBe('{"jsonrpc":"2.0","id":1,"result":42}');
    expect(JSON.parse((await server.handle(req('double', ['x'])))!).error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: [{ path: '0', message: 'need a number' }],
    });
  });

  it('maps a "__proto__" parameter name without touching the prototype', async () => {
    const server = createServer();
    server.method('own', (p: object) => Object.keys(p), { paramNames: ['__proto__'] });
    expect(await server.handle(req('own', [{ polluted: true }]))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":["__proto__"]}',
    );
    expect(({} as Record<string, unknown>).polluted).toBe(undefined);
  });

  it('answers a request to a notification handler -32601 and does not run it', async () => {
    const server = createServer();
    const seen = vi.fn();
    server.notification('log', seen);
    expect(await server.handle(req('log', ['x']))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
    );
    expect(
      await server.handle(
        '[{"jsonrpc":"2.0","id":"a","method":"log"},{"jsonrpc":"2.0","method":"log"}]',
      ),
    ).toBe('[{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found"}}]');
    // Sent as a notification it runs, once (the batch's notification member).
    expect(seen).toHaveBeenCalledTimes(1);
    expect(seen).toHaveBeenCalledWith(undefined, expect.objectContaining({ method: 'log' }));
  });
});

describe('handle(): hostile input', () => {
  it('survives deep nesting and keeps serving', async () => {
    const server = createServer({ maxMessageBytes: 10_000_000 });
    server.method('echo', (p: unknown) => p);
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const answer = await server.handle(deep);
    expect(answer).toMatch(/"code":-32(600|700)/);
    const deepParams = `{"jsonrpc":"2.0","id":1,"method":"nope","params":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect(JSON.parse((await server.handle(deepParams))!).error.code).toBe(-32601);
    expect(await server.handle(req('echo', [1]))).toBe('{"jsonrpc":"2.0","id":1,"result":[1]}');
  });

  it('does not let "__proto__" members pollute anything', async () => {
    const server = createServer();
    server.method('keys', (p: object) => Object.keys(p));
    expect(
      await server.handle(
        '{"jsonrpc":"2.0","id":1,"method":"keys","params":{"__proto__":{"x":1}}}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":["__proto__"]}');
    expect(({} as Record<string, unknown>).x).toBe(undefined);
  });
});

describe('handle(): context', () => {
  it('gives handlers id, method, transport facts and no peer', async () => {
    const server = createServer();
    let seen: unknown;
    server.method('who', (_p, ctx) => {
      seen = { id: ctx.id, method: ctx.method, transport: ctx.transport, peer: ctx.peer };
      return ctx.signal.aborted;
    });
    const transport = { kind: 'http', headers: { 'x-a': '1' }, remoteAddress: '127.0.0.1' };
    expect(await server.handle(req('who', undefined, 'x'), transport)).toBe(
      '{"jsonrpc":"2.0","id":"x","result":false}',
    );
    expect(seen).toEqual({ id: 'x', method: 'who', transport, peer: undefined });
  });

  it('aborts ctx.signal when the exchange signal aborts', async () => {
    const server = createServer();
    const exchange = new AbortController();
    let signal: AbortSignal | undefined;
    server.method('wait', (_p, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    const answer = server.handle(req('wait'), { signal: exchange.signal });
    await Promise.resolve();
    exchange.abort(new Error('client went away'));
    expect(signal!.aborted).toBe(true);
    expect(await answer).toContain('-32603');
  });

  it('always returns a promise, even for sync answers and errors', () => {
    const server = createServer();
    server.method('x', () => 1);
    expect(server.handle(req('x'))).toBeInstanceOf(Promise);
    expect(server.handle('nope')).toBeInstanceOf(Promise);
    expect(server.handle('{"jsonrpc":"2.0","method":"x"}')).toBeInstanceOf(Promise);
  });

  it('writes error answers with serializeError', async () => {
    const server = createServer();
    expect(await server.handle(req('missing', [], 'id'))).toBe(
      serializeError('id', { code: -32601, message: 'Method not found' }),
    );
  });
});

describe('handle(): the exchange signal', () => {
  it('is read only when a call needs it, and then aborts the handler', async () => {
    const server = createServer();
    server.method('sync', () => 1);
    server.method(
      'watch',
      (_params, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
        }),
    );
    const controller = new AbortController();
    let reads = 0;
    const context = {
      kind: 'test',
      get signal() {
        reads++;
        return controller.signal;
      },
    };
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"sync"}', context)).toBe(
      '{"jsonrpc":"2.0","id":1,"result":1}',
    );
    expect(reads).toBe(0);
    const answer = server.handle('{"jsonrpc":"2.0","id":2,"method":"watch"}', context);
    controller.abort();
    await answer;
    expect(reads).toBeGreaterThan(0);
  });
});

describe('a batch of slow calls under one outer signal (an HTTP exchange)', () => {
  it('adds one abort listener to the outer signal, not one per member', async () => {
    const server = createServer();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    server.method('slow', async (_params, ctx) => {
      started++;
      ctx.signal.throwIfAborted();
      await gate;
      return 'done';
    });
    const exchange = new AbortController();
    const batch = `[${Array.from({ length: 16 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"slow"}`).join(',')}]`;
    const answer = server.handle(batch, { signal: exchange.signal });
    for (let i = 0; i < 100 && started < 16; i++) await new Promise((r) => setTimeout(r, 5));
    expect(started).toBe(16); // the default batchConcurrency
    expect(getEventListeners(exchange.signal, 'abort').length).toBeLessThanOrEqual(1);
    release();
    const members = JSON.parse((await answer)!) as { result: string }[];
    expect(members.map((m) => m.result)).toEqual(Array(16).fill('done'));
    expect(getEventListeners(exchange.signal, 'abort')).toHaveLength(0);
  });

  it('aborts every member when the outer signal aborts', async () => {
    const server = createServer();
    const aborted: number[] = [];
    server.method('wait', (params: [number], ctx) => {
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted.push(params[0]);
          reject(ctx.signal.reason);
        });
      });
    });
    const exchange = new AbortController();
    const batch = `[${Array.from({ length: 12 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"wait","params":[${i}]}`).join(',')}]`;
    const answer = server.handle(batch, { signal: exchange.signal });
    await new Promise((r) => setTimeout(r, 10));
    exchange.abort(new Error('client went away'));
    await answer;
    expect(aborted.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});

describe('answer(): the same answers as handle(), at once when they can be', () => {
  it('returns the text itself for synchronous handlers and a promise for the others', async () => {
    const server = createServer({ maxMessageBytes: 200 });
    server.method('add', ([a, b]: [number, number]) => a + b);
    server.method('later', async () => 'done');
    server.notification('note', () => {});
    const add = req('add', [1, 2]);
    expect(server.answer(add)).toBe('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(server.answer(add)).toBe(await server.handle(add));
    expect(server.answer('{"jsonrpc":"2.0","method":"note"}')).toBeUndefined();
    expect(server.answer('{not json')).toBe(await server.handle('{not json'));
    expect(server.answer(req('echo', ['x'.repeat(300)]))).toContain('-32004');
    const later = server.answer(req('later'));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe('{"jsonrpc":"2.0","id":1,"result":"done"}');
  });
});
