// The same client × server behaviour over every transport: memory, HTTP, WebSocket, a child
// process over stdio in both framings, and a stream over TCP. The server is one shared
// definition (matrix-fixtures/server.mjs); what it records is read back over the wire.
import { type ClientOptions, ResultValidationError } from '@jsonrpc-kit/client';
import {
  AbortError,
  ConnectionClosedError,
  InternalError,
  InvalidParamsError,
  JsonRpcError,
  type JsonRpcId,
  type JsonRpcRequest,
  MethodNotFoundError,
  ProtocolError,
  TimeoutError,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APP_ERROR_CODE,
  CRASH_SECRET,
  calculator,
  type Recorded,
} from './matrix-fixtures/server.mjs';
import { frame, type MatrixSetup, type MatrixTransport, transports } from './matrix-transports.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(transport: MatrixTransport, options?: ClientOptions): Promise<MatrixSetup> {
  const setup = await transport.setup(options);
  cleanups.push(() => setup.close());
  return setup;
}

/**
 * Makes one call and waits for its answer, so that what the transport loads or opens on first use
 * (undici, a connection, a child process) is done before a test times a call in milliseconds: a
 * test run alone must pass as it does after others.
 */
async function warm(setup: MatrixSetup): Promise<void> {
  expect(await setup.client.request('subtract', [2, 1])).toBe(1);
}

async function waitFor<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const end = Date.now() + 3000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > end) throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error as Error,
  );
}

/** The requests the client put on the wire, batches flattened. */
function sentRequests(setup: MatrixSetup): JsonRpcRequest[] {
  return setup.sent
    .flatMap((text) => {
      const parsed = JSON.parse(text) as unknown;
      return Array.isArray(parsed) ? parsed : [parsed];
    })
    .filter((m): m is JsonRpcRequest => typeof m === 'object' && m !== null && 'id' in m);
}

function sentId(setup: MatrixSetup, method: string): JsonRpcId | undefined {
  return sentRequests(setup).find((m) => m.method === method)?.id;
}

const recorded = (setup: MatrixSetup) => (): Promise<Recorded> =>
  setup.client.request<Recorded>('recorded');

describe.each(transports)('matrix: $name', (transport) => {
  it('answers single calls', async () => {
    const { client } = await start(transport);
    expect(await client.request('subtract', [42, 23])).toBe(19);
    expect(await client.request('sum', [1, 2, 4])).toBe(7);
    const payload = { text: 'é€😀\u2028"\\', list: [1, null, true, { deep: [0.5] }] };
    expect(await client.request('echo', payload)).toEqual(payload);
    expect(await client.request('echo', [])).toEqual([]);
    expect(await client.request('get_data')).toEqual(['hello', 5]);
    expect(client.pending).toBe(0);
  });

  it('takes params by position and by name', async () => {
    const { client } = await start(transport);
    expect(await client.request('subtract', [23, 42])).toBe(-19);
    expect(await client.request('subtract', { minuend: 42, subtrahend: 23 })).toBe(19);
    expect(await client.request('subtract', { subtrahend: 23, minuend: 42 })).toBe(19);
  });

  it('rejects each error with its class, code, message, data, method and id', async () => {
    const setup = await start(transport);
    const { client } = setup;

    const missing = await rejection(client.request('no_such_method', [1]));
    expect(missing).toBeInstanceOf(MethodNotFoundError);
    expect(missing).toMatchObject({ code: -32601, method: 'no_such_method' });
    expect((missing as JsonRpcError).id).toBe(sentId(setup, 'no_such_method'));

    const invalid = await rejection(client.request('calc.divide', { dividend: 'x', divisor: 0 }));
    expect(invalid).toBeInstanceOf(InvalidParamsError);
    expect(invalid).toMatchObject({ code: -32602, method: 'calc.divide' });
    expect((invalid as JsonRpcError).id).toBe(sentId(setup, 'calc.divide'));
    const issues = (invalid as JsonRpcError).data as { path: string; message: string }[];
    expect(issues.map((issue) => issue.path).sort()).toEqual(['dividend', 'divisor']);
    for (const issue of issues) expect(typeof issue.message).toBe('string');

    const failed = await rejection(client.request('fail', { why: 1 }));
    expect(failed).toBeInstanceOf(JsonRpcError);
    expect(failed).not.toBeInstanceOf(InternalError);
    expect(failed).toMatchObject({
      code: APP_ERROR_CODE,
      message: 'Application failure',
      data: { reason: 'asked to', params: { why: 1 } },
      method: 'fail',
    });
    expect((failed as JsonRpcError).id).toBe(sentId(setup, 'fail'));

    const crashed = await rejection(client.request('crash'));
    expect(crashed).toBeInstanceOf(InternalError);
    expect(crashed).toMatchObject({ code: -32603, message: 'Internal error', method: 'crash' });
    expect((crashed as JsonRpcError).data).toBeUndefined();
    expect(JSON.stringify(crashed)).not.toContain('secret');
    expect(crashed.message).not.toContain(CRASH_SECRET);
    expect(client.pending).toBe(0);
  });

  it('sends a typed batch with a notification, answers in order', async () => {
    const setup = await start(transport);
    const { client } = setup;
    const results = await client.batch((b) => [
      b.request<number>('subtract', [5, 3]),
      b.notify('record', { from: 'batch' }),
      b.request('no_such_method'),
      b.request<[string, number]>('get_data'),
      b.request<number>('sum', [1, 1]),
      b.request('fail'),
    ]);
    expect(results).toHaveLength(5);
    expect(results[0]).toEqual({ ok: true, value: 2 });
    expect(results[1].ok).toBe(false);
    if (!results[1].ok) {
      expect(results[1].error).toBeInstanceOf(MethodNotFoundError);
      expect(results[1].error).toMatchObject({ method: 'no_such_method' });
    }
    expect(results[2]).toEqual({ ok: true, value: ['hello', 5] });
    expect(results[3]).toEqual({ ok: true, value: 2 });
    expect(results[4].ok).toBe(false);
    if (!results[4].ok) expect(results[4].error).toMatchObject({ code: APP_ERROR_CODE });
    // One message on the wire: an array of six, the notification without an id member.
    const batch = setup.sent.map((t) => JSON.parse(t) as unknown).find(Array.isArray) as
      | Record<string, unknown>[]
      | undefined;
    expect(batch).toHaveLength(6);
    expect(batch?.[1]).toEqual({ jsonrpc: '2.0', method: 'record', params: { from: 'batch' } });
    await waitFor(recorded(setup), (r) =>
      r.notes.some((n) => JSON.stringify(n) === '{"from":"batch"}'),
    );
    expect(client.pending).toBe(0);
  });

  it('delivers notifications to the server', async () => {
    const setup = await start(transport);
    await setup.client.notify('record', { n: 1 });
    await setup.client.notify('record', [2]);
    await setup.client.notify('record');
    const { notes } = await waitFor(recorded(setup), (r) => r.notes.length >= 3);
    // The third had no params: the handler saw `undefined`, which JSON carries back as null.
    expect(notes).toEqual([{ n: 1 }, [2], null]);
    expect(setup.sent.some((t) => t.includes('"id"') && t.includes('"record"'))).toBe(false);
  });

  it('answers 200 concurrent calls correctly', async () => {
    const { client } = await start(transport);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? client.request<number>('subtract', [i, 1])
          : client.request<number>('subtract', { minuend: i, subtrahend: 1 }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i - 1));
    expect(client.pending).toBe(0);
  });

  it('gives the same answers with auto-batching, in one message', async () => {
    const setup = await start(transport, { batch: true });
    const { client } = setup;
    const calls = Array.from({ length: 20 }, (_, i) => client.request<number>('sum', [i, i]));
    const failing = client.request('no_such_method');
    const note = client.notify('record', ['auto']);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, (_, i) => 2 * i));
    expect(await rejection(failing)).toBeInstanceOf(MethodNotFoundError);
    await note;
    expect(setup.sent).toHaveLength(1);
    const batch = JSON.parse(setup.sent[0]!) as unknown[];
    expect(batch).toHaveLength(22);
    await waitFor(recorded(setup), (r) => r.notes.some((n) => JSON.stringify(n) === '["auto"]'));
    expect(client.pending).toBe(0);
  });

  it('times out a call and, with cancellation, aborts the handler', async () => {
    const setup = await start(transport, { sendCancel: true });
    const { client } = setup;
    await warm(setup);
    const started = Date.now();
    const error = await rejection(client.request('sleep', { ms: 5000 }, { timeout: 60 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', method: 'sleep', timeout: 60 });
    const id = (error as TimeoutError).id;
    expect(id).toBe(sentId(setup, 'sleep'));
    expect(client.pending).toBe(0);
    // Duplex: the `$/cancelRequest` notification aborts the handler. HTTP: the aborted exchange
    // (the client disconnects) aborts it.
    const { aborted } = await waitFor(recorded(setup), (r) => r.aborted.includes(id!));
    expect(aborted).toEqual([id]);
    if (setup.duplex) {
      const cancel = setup.sent.find((t) => t.includes('$/cancelRequest'));
      expect(JSON.parse(cancel!)).toEqual({
        jsonrpc: '2.0',
        method: '$/cancelRequest',
        params: { id },
      });
    }
    // The connection still serves.
    expect(await client.request('subtract', [2, 1])).toBe(1);
  });

  it('rejects an aborted call with AbortError', async () => {
    const setup = await start(transport);
    const { client } = setup;
    const controller = new AbortController();
    const call = client.request('sleep', { ms: 5000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 30);
    const error = await rejection(call);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ code: 'ABORTED', method: 'sleep' });
    expect(client.pending).toBe(0);

    const before = setup.sent.length;
    const early = await rejection(client.request('sum', [1], { signal: AbortSignal.abort() }));
    expect(early).toBeInstanceOf(AbortError);
    expect(setup.sent).toHaveLength(before);
    expect(await client.request('sum', [1, 2])).toBe(3);
  });

  it('makes typed calls through a contract proxy', async () => {
    const setup = await start(transport);
    const { client } = setup;
    const calc = client.contract(calculator, { prefix: 'calc.' });
    expect(await calc.add(2, 3)).toBe(5);
    expect(await calc.divide({ dividend: 6, divisor: 3 })).toBe(2);
    const positional = client.contract(calculator, { prefix: 'calc.', params: 'byPosition' });
    expect(await positional.divide({ dividend: 9, divisor: 3 })).toBe(3);
    const divides = sentRequests(setup).filter((m) => m.method === 'calc.divide');
    expect(divides.map((m) => m.params)).toEqual([{ dividend: 6, divisor: 3 }, [9, 3]]);

    const zero = await rejection(calc.divide({ dividend: 1, divisor: 0 }));
    expect(zero).toBeInstanceOf(InvalidParamsError);
    expect((zero as InvalidParamsError).data).toEqual([
      { path: 'divisor', message: expect.any(String) },
    ]);

    await calc.log({ message: 'hi' });
    await waitFor(recorded(setup), (r) =>
      r.notes.some((n) => JSON.stringify(n) === '{"message":"hi"}'),
    );

    // A result that breaks the contract is refused by the client.
    const echoAsAdd = client.contract({ echo: calculator.add });
    const broken = await rejection(echoAsAdd.echo(1, 2));
    expect(broken).toBeInstanceOf(ResultValidationError);
    expect(client.pending).toBe(0);
  });

  it('closing the client rejects pending calls with ConnectionClosedError', async () => {
    const setup = await start(transport);
    const { client } = setup;
    expect(await client.request('sum', [1])).toBe(1);
    const sleeps = [
      rejection(client.request('sleep', { ms: 5000 })),
      rejection(client.request('sleep', { ms: 5000 })),
    ];
    const echo = client.request('echo', ['late']).then(
      (value) => value,
      (error: unknown) => error,
    );
    // Let them reach the wire first.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(client.pending).toBeGreaterThanOrEqual(2);
    const sleepIds = sentRequests(setup)
      .filter((m) => m.method === 'sleep')
      .map((m) => m.id);
    await client.close();
    const errors = await Promise.all(sleeps);
    for (const [i, error] of errors.entries()) {
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', method: 'sleep', id: sleepIds[i] });
      expect(error.message).toContain('sleep');
    }
    // The echo may have been answered before the close; it must not hang either way.
    const late = await echo;
    if (late instanceof Error) expect(late).toBeInstanceOf(ConnectionClosedError);
    else expect(late).toEqual(['late']);
    expect(client.pending).toBe(0);
    const after = await rejection(client.request('sum', [1]));
    expect(after).toBeInstanceOf(ConnectionClosedError);
    expect(client.pending).toBe(0);
  });

  it('answers bad input per spec, then good input on the same channel', async () => {
    const setup = await start(transport);
    const raw = await setup.raw();
    const answer = async (text: string): Promise<unknown> => {
      const reply = await raw.exchange(text);
      expect(reply).toBeDefined();
      return JSON.parse(reply!);
    };

    expect(await answer('{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
    expect(await answer('{"jsonrpc":"2.0","method":1,"params":"bar","id":7}')).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600 },
    });
    expect(await answer('[]')).toMatchObject({ id: null, error: { code: -32600 } });
    const pair = await answer('[1,2]');
    expect(pair).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect(await answer('{"jsonrpc":"2.0","method":"__proto__","id":"p"}')).toMatchObject({
      id: 'p',
      error: { code: -32601 },
    });
    expect(await answer('{"jsonrpc":"2.0","method":"toString","id":3}')).toMatchObject({
      id: 3,
      error: { code: -32601 },
    });
    expect(await answer('{"jsonrpc":"1.0","method":"sum","params":[1],"id":4}')).toMatchObject({
      id: 4,
      error: { code: -32600 },
    });
    expect(await answer('{"jsonrpc":"2.0","method":"subtract","params":7,"id":5}')).toMatchObject({
      id: 5,
      error: { code: expect.any(Number) },
    });
    const crash = await raw.exchange('{"jsonrpc":"2.0","method":"crash","id":"c"}');
    expect(crash).not.toContain('secret');
    expect(crash).not.toContain('/srv/');
    expect(JSON.parse(crash!)).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      error: { code: -32603, message: 'Internal error' },
    });

    // Good input on the same channel: ids echoed exactly, big integers digit for digit.
    const big = await raw.exchange(
      '{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":9007199254740993}',
    );
    expect(big).toMatch(/"id":9007199254740993[,}]/);
    expect(JSON.parse(big!)).toMatchObject({ jsonrpc: '2.0', result: 19 });
    const mixed = await answer(
      '[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},' +
        '{"jsonrpc":"2.0","method":"record","params":[7]},' +
        '{"foo":"boo"},' +
        '{"jsonrpc":"2.0","method":"get_data","id":"9"}]',
    );
    expect(mixed).toEqual([
      { jsonrpc: '2.0', id: '1', result: 7 },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: '9', result: ['hello', 5] },
    ]);
    expect(await answer('{"jsonrpc":"2.0","method":"echo","params":[1.5],"id":2.5}')).toEqual({
      jsonrpc: '2.0',
      id: 2.5,
      result: [1.5],
    });
    // The client's own connection is untouched.
    expect(await setup.client.request('subtract', [42, 23])).toBe(19);
  });

  it('delivers progress before the answer on duplex transports, none over HTTP', async () => {
    const { client } = await start(transport, { callTimeout: 5000 });
    const seen: unknown[] = [];
    const answer = await client.request(
      'count',
      { to: 3 },
      { onProgress: (value) => seen.push(value), resetTimeoutOnProgress: true },
    );
    if (transport.duplex) {
      expect(answer).toEqual({ reported: true });
      expect(seen).toEqual([
        { done: 1, of: 3 },
        { done: 2, of: 3 },
        { done: 3, of: 3 },
      ]);
    } else {
      expect(answer).toEqual({ reported: false });
      expect(seen).toEqual([]);
    }
    // Without onProgress no token is sent, so the handler gets no reporter.
    expect(await client.request('count', { to: 2 })).toEqual({ reported: false });
  });

  it('runs client middleware around requests and notifications, in order and back', async () => {
    const setup = await start(transport);
    const { client } = setup;
    const order: string[] = [];
    client.use(async (call, next) => {
      order.push(`a>${call.kind}:${call.method}`);
      if (call.method === 'echo') call.params = { ...(call.params as object), auth: 'token' };
      const result = await next();
      order.push('a<');
      return result;
    });
    const remove = client.use(async (call, next) => {
      order.push('b>');
      const result = await next();
      order.push('b<');
      return call.method === 'sum' ? (result as number) * 10 : result;
    });
    expect(await client.request('echo', { x: 1 })).toEqual({ x: 1, auth: 'token' });
    expect(await client.request('sum', [1, 2])).toBe(30);
    await client.notify('record', { text: 'through middleware' });
    expect(order).toEqual([
      'a>request:echo',
      'b>',
      'b<',
      'a<',
      'a>request:sum',
      'b>',
      'b<',
      'a<',
      'a>notification:record',
      'b>',
      'b<',
      'a<',
    ]);
    await waitFor(recorded(setup), (r) =>
      r.notes.some((n) => JSON.stringify(n) === '{"text":"through middleware"}'),
    );
    remove();
    expect(await client.request('sum', [1, 2])).toBe(3);
  });

  it('without cancellation, a timeout sends no cancel; HTTP still aborts the exchange', async () => {
    const setup = await start(transport);
    await warm(setup);
    const error = await rejection(setup.client.request('sleep', { ms: 5000 }, { timeout: 40 }));
    expect(error).toBeInstanceOf(TimeoutError);
    const id = (error as TimeoutError).id!;
    expect(setup.sent.some((t) => t.includes('$/cancelRequest'))).toBe(false);
    if (setup.duplex) {
      // Nothing told the server: its handler still runs.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await recorded(setup)()).aborted).toEqual([]);
    } else {
      // The HTTP request was aborted: the client went away, so the handler's signal fired.
      await waitFor(recorded(setup), (r) => r.aborted.includes(id));
    }
    expect(setup.client.pending).toBe(0);
  });

  it.runIf(transport.framing !== undefined)(
    'skips a garbage frame and answers the next one on the same channel',
    async () => {
      const setup = await start(transport);
      const raw = await setup.raw();
      const garbage =
        setup.framing === 'newline'
          ? Buffer.from('\n\n   \r\n', 'utf8') // blank lines are no messages
          : Buffer.from('Content-Length: nope\r\n\r\n{"x":1}', 'ascii');
      raw.write!(garbage);
      const reply = await raw.exchange(
        '{"jsonrpc":"2.0","method":"sum","params":[2,3],"id":"after"}',
      );
      expect(JSON.parse(reply!)).toEqual({ jsonrpc: '2.0', id: 'after', result: 5 });
      expect(await setup.client.request('sum', [1, 1])).toBe(2);
    },
  );

  it.runIf(transport.framing !== undefined)(
    "bad bytes on the client's own connection: reported, and the connection keeps serving",
    async () => {
      const errors: Error[] = [];
      const setup = await start(transport, { onError: (error) => errors.push(error) });
      expect(await setup.client.request('sum', [1, 2])).toBe(3);
      setup.inject!(frame(setup.framing!, '{"jsonrpc":"2.0","method":'));
      // The server answers -32700 with id null; no call waits, so the client reports it.
      const end = Date.now() + 2000;
      while (errors.length === 0 && Date.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(ProtocolError);
      expect(JSON.stringify((errors[0] as ProtocolError).received)).toContain('-32700');
      expect(await setup.client.request('subtract', [42, 23])).toBe(19);
      expect(setup.client.pending).toBe(0);
    },
  );

  it.runIf(transport.duplex)('server push and server-to-client requests', async () => {
    const pushed: unknown[] = [];
    const asked: unknown[] = [];
    const setup = await start(transport, {
      onNotification: (notification) => {
        pushed.push(notification);
      },
      onRequest: (request) => {
        asked.push(request);
        if (request.method !== 'double') throw new MethodNotFoundError();
        const [n] = request.params as [number];
        return n * 2;
      },
    });
    expect(await setup.client.request('callback', { n: 21 })).toEqual({ doubled: 42 });
    expect(await setup.client.request('callback', [5])).toEqual({ doubled: 10 });
    expect(pushed).toEqual([
      { jsonrpc: '2.0', method: 'pushed', params: { n: 21 } },
      { jsonrpc: '2.0', method: 'pushed', params: { n: 5 } },
    ]);
    expect(asked).toMatchObject([
      { method: 'double', params: [21] },
      { method: 'double', params: [5] },
    ]);
    // The answers to the server's requests went out on the wire with its ids.
    const answers = setup.sent
      .map((t) => JSON.parse(t) as Record<string, unknown>)
      .filter((m) => 'result' in m);
    expect(answers.map((m) => m.result)).toEqual([42, 10]);
    expect(setup.client.pending).toBe(0);
  });

  it.runIf(transport.duplex)('a client without onRequest answers -32601', async () => {
    const { client } = await start(transport);
    const error = await rejection(client.request('callback', { n: 1 }));
    expect(error).toBeInstanceOf(MethodNotFoundError);
    expect(client.pending).toBe(0);
  });

  it.runIf(!transport.duplex)('a method needing the peer answers cleanly', async () => {
    const { client } = await start(transport);
    const error = await rejection(client.request('callback', { n: 1 }));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32000, message: 'No peer on this transport' });
  });
});
