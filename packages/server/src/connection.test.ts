import { createHook } from 'node:async_hooks';
import {
  ConnectionClosedError,
  createMemoryTransportPair,
  defaultProfile,
  type JsonRpcId,
  type Transport,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer } from './server.js';
import type { Connection, Server } from './server-types.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Remote {
  readonly transport: Transport;
  readonly inbox: string[];
  readonly closed: boolean;
  /** Waits (bounded) for the next message. */
  next(): Promise<string>;
  send(text: string): Promise<void>;
}

const open: Array<Connection> = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

async function connect(server: Server): Promise<[Connection, Remote]> {
  const [a, b] = createMemoryTransportPair();
  const connection = server.connect(b, { kind: 'memory' });
  open.push(connection);
  const inbox: string[] = [];
  let closed = false;
  await a.start({
    onMessage: (m) => inbox.push(m),
    onClose: () => {
      closed = true;
    },
  });
  const remote: Remote = {
    transport: a,
    inbox,
    get closed() {
      return closed;
    },
    async next() {
      for (let i = 0; i < 200 && inbox.length === 0; i++) await sleep(5);
      const message = inbox.shift();
      if (message === undefined) throw new Error('no message');
      return message;
    },
    send: (text) => a.send(text),
  };
  return [connection, remote];
}

const req = (method: string, id: JsonRpcId, params: unknown = []): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('connect()', () => {
  it('makes one promise for an idle connection: none for `closed` until it is read', async () => {
    const server = createServer();
    const started = Promise.resolve();
    let owner: TransportHandler | undefined;
    const transport: Transport = {
      start(handler) {
        owner = handler;
        return started;
      },
      send: () => started,
      close: () => started,
    };
    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'PROMISE') promises++;
      },
    });
    hook.enable();
    const connection = server.connect(transport);
    hook.disable();
    // Counting work: the one promise is the start's continuation, dropped once it ran.
    expect(promises).toBeLessThanOrEqual(1);
    const closed = connection.closed;
    expect(connection.closed).toBe(closed);
    owner!.onClose();
    await closed;
  });

  it('answers requests, sync and async, in one send per message', async () => {
    const server = createServer();
    server.method('sync', () => 1);
    server.method('async', async () => 2);
    const [, remote] = await connect(server);
    await remote.send(`[${req('sync', 1)},${req('async', 2)}]`);
    expect(await remote.next()).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":2}]',
    );
    expect(remote.inbox).toHaveLength(0);
  });

  it('cancels a running handler: ctx.signal fires and -32001 is answered at once', async () => {
    const server = createServer();
    let signal: AbortSignal | undefined;
    server.method('forever', (_p, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {}); // ignores its signal
    });
    const [connection, remote] = await connect(server);
    await remote.send(req('forever', 'x'));
    await sleep(5);
    expect(connection.inFlight).toBe(1);
    await remote.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"x"}}');
    expect(await remote.next()).toBe(
      '{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"Request cancelled"}}',
    );
    expect(signal!.aborted).toBe(true);
    // cancelling an unknown or finished id is harmless
    await remote.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"x"}}');
    await remote.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"nope"}}');
    await remote.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{}}');
    server.method('ping', () => 'pong');
    await remote.send(req('ping', 1));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"pong"}');
  });

  it('uses a custom cancellation protocol, and can turn it off', async () => {
    const server = createServer({
      profile: {
        ...defaultProfile,
        cancellation: {
          method: 'notifications/cancelled',
          code: -32800,
          toParams: (id) => ({ requestId: id }),
          fromParams: (p) => (p as { requestId?: JsonRpcId } | undefined)?.requestId,
        },
      },
    });
    server.method('forever', () => new Promise(() => {}));
    const [, remote] = await connect(server);
    await remote.send(req('forever', 7));
    await remote.send(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}',
    );
    expect(JSON.parse(await remote.next())).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32800, message: 'Request cancelled' },
    });

    const onError = vi.fn();
    const plain = createServer({ profile: false, onError, onErrorLevel: 'debug' });
    plain.method('slow', async () => {
      await sleep(20);
      return 'done';
    });
    const [, remote2] = await connect(plain);
    await remote2.send(req('slow', 1));
    await remote2.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}');
    expect(await remote2.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"done"}');
    // An unknown notification now, reported at debug level.
    expect(onError.mock.calls[0]![0].code).toBe(-32601);
    expect(onError.mock.calls[0]![1]).toEqual({
      kind: 'unknown-notification',
      level: 'debug',
      method: '$/cancelRequest',
      notification: true,
    });
  });

  it('sends no answer for a cancelled request when the protocol says so (MCP)', async () => {
    const server = createServer({
      profile: {
        ...defaultProfile,
        cancellation: {
          method: 'notifications/cancelled',
          code: -32001,
          answer: false,
          toParams: (id) => ({ requestId: id }),
          fromParams: (p) => (p as { requestId?: JsonRpcId } | undefined)?.requestId,
        },
      },
    });
    let aborted = false;
    server.method(
      'forever',
      (_params, ctx) =>
        new Promise(() => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    );
    server.method('ping', () => 'pong');
    const [, remote] = await connect(server);
    await remote.send(req('forever', 7));
    await remote.send(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}',
    );
    await remote.send(req('ping', 8));
    // The next thing on the wire is the ping's answer: request 7 is never answered.
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":8,"result":"pong"}');
    await sleep(20);
    expect(remote.inbox).toEqual([]);
    expect(aborted).toBe(true);
  });

  it('times out on connections too', async () => {
    const server = createServer({ handlerTimeout: 15 });
    let signal: AbortSignal | undefined;
    server.method('slow', (_p, ctx) => {
      signal = ctx.signal;
      return sleep(100);
    });
    const [, remote] = await connect(server);
    await remote.send(req('slow', 1));
    expect(JSON.parse(await remote.next()).error.code).toBe(-32005);
    expect(signal!.aborted).toBe(true);
  });

  it('closing the transport aborts running handlers and rejects pending outgoing requests', async () => {
    const server = createServer();
    const signals: AbortSignal[] = [];
    server.method('wait', (_p, ctx) => {
      signals.push(ctx.signal);
      return new Promise(() => {});
    });
    server.notification('waitNote', (_p, ctx) => {
      signals.push(ctx.signal);
      return new Promise(() => {});
    });
    const [connection, remote] = await connect(server);
    expect(server.connections.has(connection)).toBe(true);
    await remote.send(req('wait', 1));
    await remote.send('{"jsonrpc":"2.0","method":"waitNote"}');
    await sleep(5);
    const outgoing = connection.request('client.method');
    await remote.transport.close();
    await connection.closed;
    await expect(outgoing).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(signals).toHaveLength(2);
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(server.connections.has(connection)).toBe(false);
    await expect(connection.request('x')).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(connection.notify('x')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('calls the peer back: ctx.peer.request and notify, correlated by id', async () => {
    const server = createServer();
    server.method('askBack', async (_p, ctx) => {
      await ctx.peer!.notify('progress', { pct: 50 });
      const answer = await ctx.peer!.request<number>('client.add', [2, 3]);
      return answer * 10;
    });
    const [, remote] = await connect(server);
    await remote.send(req('askBack', 'r1'));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","method":"progress","params":{"pct":50}}');
    const call = JSON.parse(await remote.next());
    expect(call).toMatchObject({ method: 'client.add', params: [2, 3] });
    await remote.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: 5 }));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":"r1","result":50}');
  });

  it('sendText sends pre-serialized text as it is, in order with notify, and rejects once closed', async () => {
    const server = createServer();
    const [connection, remote] = await connect(server);
    // Key order and spacing a second JSON.stringify would not keep.
    const text = '{"params": {"b":1,"a":2}, "method":"tick","jsonrpc":"2.0"}';
    const sent = connection.sendText(text);
    void connection.notify('after');
    await sent;
    expect(await remote.next()).toBe(text);
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","method":"after"}');
    await connection.close();
    await expect(connection.sendText(text)).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('rejects outgoing requests with the wire error and times them out, sending a cancel', async () => {
    const server = createServer({ peerCallTimeout: 20 });
    const [connection, remote] = await connect(server);
    const failing = connection.request('x');
    const call = JSON.parse(await remote.next());
    await remote.send(
      JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'nope' } }),
    );
    await expect(failing).rejects.toMatchObject({ code: -32601 });
    const slow = connection.request('y');
    const slowCall = JSON.parse(await remote.next());
    await expect(slow).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(JSON.parse(await remote.next())).toEqual({
      jsonrpc: '2.0',
      method: '$/cancelRequest',
      params: { id: slowCall.id },
    });
  });

  it('reports unexpected and malformed responses without answering them', async () => {
    const onError = vi.fn();
    const server = createServer({ onError });
    server.method('ping', () => 'pong');
    const [, remote] = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":99,"result":1}');
    await remote.send('{"jsonrpc":"2.0","id":98,"result":1,"error":{"code":1,"message":"x"}}');
    await remote.send(req('ping', 1));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"pong"}');
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it('fails its own call at once when the peer answers it with an invalid response', async () => {
    const onError = vi.fn();
    const server = createServer({ onError, peerCallTimeout: 60_000 });
    const [connection, remote] = await connect(server);
    const asking = connection.request('x');
    const call = JSON.parse(await remote.next());
    // Both result and error: the answer names the call, but breaks the spec.
    await remote.send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":1,"error":{"code":1,"message":"x"}}`,
    );
    await expect(asking).rejects.toMatchObject({
      name: 'ProtocolError',
      message: expect.stringContaining('Received an invalid answer'),
    });
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'ProtocolError' }),
      expect.objectContaining({ kind: 'invalid-message', method: 'x', id: call.id }),
    );
    // Nothing is answered back, and the connection keeps serving.
    expect(remote.inbox).toEqual([]);
  });

  it('answers an oversized request -32004 with its own id, and keeps serving', async () => {
    const onError = vi.fn();
    const server = createServer({ maxMessageBytes: 100, onError });
    server.method('ping', () => 'pong');
    const [, remote] = await connect(server);
    await remote.send(req('ping', 1, ['x'.repeat(200)]));
    expect(await remote.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"Request too large","data":{"maxRequestBytes":100}}}',
    );
    // The id last, as the MCP SDK writes it, and an id a number cannot hold.
    await remote.send(
      `{"jsonrpc":"2.0","method":"ping","params":["${'x'.repeat(200)}"],"id":9007199254740993}`,
    );
    expect(await remote.next()).toContain('"id":9007199254740993,');
    await remote.send(req('ping', 2));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":2,"result":"pong"}');
    expect(onError).toHaveBeenCalledTimes(2);
    expect(onError.mock.calls[0]![1]).toEqual({
      kind: 'message-too-large',
      level: 'warn',
      method: 'ping',
      id: 1,
      notification: false,
    });
  });

  it('never answers an oversized notification, and tells onError', async () => {
    const onError = vi.fn();
    const server = createServer({ maxMessageBytes: 100, onError });
    server.method('ping', () => 'pong');
    const [, remote] = await connect(server);
    await remote.send(
      `{"jsonrpc":"2.0","method":"didOpen","params":{"text":"${'x'.repeat(200)}"}}`,
    );
    await remote.send(req('ping', 2));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":2,"result":"pong"}');
    expect(remote.inbox).toEqual([]);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toMatchObject({ code: -32004 });
    expect(onError.mock.calls[0]![1]).toEqual({
      kind: 'message-too-large',
      level: 'warn',
      method: 'didOpen',
      notification: true,
    });
  });

  it('answers an oversized batch with one -32004 and id null', async () => {
    const server = createServer({ maxMessageBytes: 100 });
    const [, remote] = await connect(server);
    await remote.send(`[${req('ping', 1, ['x'.repeat(200)])}]`);
    expect(JSON.parse(await remote.next())).toMatchObject({ id: null, error: { code: -32004 } });
  });

  it('fails its own pending request when the answer is oversized', async () => {
    const server = createServer({ maxMessageBytes: 100 });
    const [connection, remote] = await connect(server);
    const call = connection.request('config', undefined, { timeout: 2000 });
    const sent = JSON.parse(await remote.next()) as { id: number };
    await remote.send(JSON.stringify({ jsonrpc: '2.0', id: sent.id, result: 'x'.repeat(200) }));
    await expect(call).rejects.toMatchObject({ code: -32004 });
  });

  it('answers what the transport dropped for its size through onTooLarge, with the same rule', async () => {
    const onError = vi.fn();
    const server = createServer({ maxMessageBytes: 100, onError });
    let handler: TransportHandler | undefined;
    const sent: string[] = [];
    const transport: Transport = {
      maxMessageBytes: 50,
      start: async (h) => {
        handler = h;
      },
      send: async (text) => {
        sent.push(text);
      },
      close: async () => {},
    };
    open.push(server.connect(transport));
    // The server offers its own limit to the transport.
    expect(handler!.maxMessageBytes).toBe(100);
    const dropped = new Error('too large');
    handler!.onTooLarge!({ kind: 'request', id: 'a', rawId: undefined, method: 'm' }, dropped);
    handler!.onTooLarge!(
      { kind: 'notification', id: null, rawId: undefined, method: 'n' },
      dropped,
    );
    // The transport's own limit (50) is the connection's: 60 bytes are too many here.
    handler!.onMessage(`{"jsonrpc":"2.0","id":"b","method":"m","params":["${'x'.repeat(10)}"]}`);
    await sleep(5);
    expect(sent.map((text) => JSON.parse(text))).toMatchObject([
      { id: 'a', error: { code: -32004, data: { maxRequestBytes: 50 } } },
      { id: 'b', error: { code: -32004 } },
    ]);
    expect(onError.mock.calls.map((call) => call[1])).toEqual([
      { kind: 'message-too-large', level: 'warn', method: 'm', id: 'a', notification: false },
      { kind: 'message-too-large', level: 'warn', method: 'n', notification: true },
      { kind: 'message-too-large', level: 'warn', method: 'm', id: 'b', notification: false },
    ]);
    expect(onError.mock.calls[0]![0]).toBe(dropped);
  });

  it('limits concurrency per connection and answers -32002 past the queue', async () => {
    const server = createServer({ maxConcurrency: 2, maxQueue: 1 });
    let now = 0;
    let peak = 0;
    server.method('slow', async () => {
      peak = Math.max(peak, ++now);
      await sleep(20);
      now--;
      return 'ok';
    });
    const [firstConnection, first] = await connect(server);
    const [secondConnection, second] = await connect(server);
    for (let i = 0; i < 5; i++) await first.send(req('slow', i));
    // One call waits, in the first connection's own queue: the second's is still empty.
    const queueOf = (c: Connection) =>
      (c as unknown as { limiter: { queue: { length: number } } }).limiter.queue;
    for (let i = 0; i < 200 && queueOf(firstConnection).length === 0; i++) await sleep(1);
    expect(queueOf(firstConnection)).toHaveLength(1);
    expect(queueOf(secondConnection)).toHaveLength(0);
    await second.send(req('slow', 'other'));
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(JSON.parse(await first.next()));
    expect(answers.filter((a) => a.error?.code === -32002)).toHaveLength(2);
    expect(answers.filter((a) => a.result === 'ok')).toHaveLength(3);
    expect(JSON.parse(await second.next()).result).toBe('ok');
    expect(peak).toBeLessThanOrEqual(4);
  });

  it('rejects pending outgoing requests on onDisconnect', async () => {
    const server = createServer();
    let handler!: Parameters<Transport['start']>[0];
    const transport: Transport = {
      start: (h) => {
        handler = h;
        return Promise.resolve();
      },
      send: () => Promise.resolve(),
      close: () => {
        handler.onClose();
        return Promise.resolve();
      },
    };
    const connection = server.connect(transport);
    open.push(connection);
    const pending = connection.request('x');
    handler.onDisconnect!(new Error('dropped'));
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('reports a transport that fails to start and closes the connection', async () => {
    const onError = vi.fn();
    const server = createServer({ onError });
    const boom = new Error('cannot start');
    const connection = server.connect({
      start: () => Promise.reject(boom),
      send: () => Promise.resolve(),
      close: () => Promise.resolve(),
    });
    await connection.closed;
    expect(onError).toHaveBeenCalledWith(boom, {
      kind: 'transport-error',
      level: 'error',
      notification: false,
    });
    expect(server.connections.size).toBe(0);
  });

  it('server.close() closes every connection', async () => {
    const server = createServer();
    const [c1, r1] = await connect(server);
    const [c2, r2] = await connect(server);
    expect(server.connections.size).toBe(2);
    await server.close();
    await Promise.all([c1.closed, c2.closed]);
    await sleep(1);
    expect(server.connections.size).toBe(0);
    expect(r1.closed && r2.closed).toBe(true);
  });

  it('closes through Symbol.asyncDispose', async () => {
    const server = createServer();
    const [connection] = await connect(server);
    await connection[Symbol.asyncDispose]();
    await connection.closed;
    const [other] = await connect(server);
    await server[Symbol.asyncDispose]();
    await other.closed;
    expect(server.connections.size).toBe(0);
  });

  it('exposes the context to handlers', async () => {
    const server = createServer();
    server.method('kind', (_p, ctx) => [ctx.transport.kind, ctx.peer !== undefined]);
    const [, remote] = await connect(server);
    await remote.send(req('kind', 1));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":1,"result":["memory",true]}');
  });
});

describe('connection memory', () => {
  it('gives every connection the same methods and makes no AbortController while idle', async () => {
    const server = createServer();
    server.method('add', ([a, b]: [number, number]) => a + b);
    const made = vi.spyOn(globalThis, 'AbortController');
    const [a, remoteA] = await connect(server);
    const [b] = await connect(server);
    // Counting work: a server holds thousands of idle connections; none carries its own closures.
    expect(a.notify).toBe(b.notify);
    expect(a.request).toBe(b.request);
    expect(a.close).toBe(b.close);
    // No call waits yet: the two limiters share one empty queue.
    const queueOf = (c: Connection) =>
      (c as unknown as { limiter: { queue: unknown } }).limiter.queue;
    expect(queueOf(a)).toBe(queueOf(b));
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();
    await remoteA.send(req('add', 1, [1, 2]));
    expect(await remoteA.next()).toBe('{"jsonrpc":"2.0","id":1,"result":3}');
    expect(a.inFlight).toBe(0);
    await Promise.all([a.close(), b.close()]);
    await expect(a.notify('late')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('is one object: the options of its session, the scope of its calls and their limiter', async () => {
    const server = createServer();
    let peer: unknown;
    server.method('who', (_params: unknown, ctx) => {
      peer = ctx.peer;
      return ctx.transport.kind;
    });
    const [connection, remote] = await connect(server);
    // Counting objects: its context, its session and the limiter's running count (what few
    // connections need, a queue or a limit of their own, is private: no key); hooks, options,
    // scope, the limiter's bounds and its lanes' count (always 0: a connection's limiter has no
    // lanes) live on its prototype.
    expect(Object.keys(connection).sort()).toEqual(['active', 'context', 'session']);
    // So does its server's config: a getter of a prototype all the server's connections share,
    // not a field of each (another server's connections have a prototype of their own).
    const [sibling] = await connect(server);
    const [stranger] = await connect(createServer());
    const serverPrototype = Object.getPrototypeOf(connection) as object;
    expect(Object.getOwnPropertyNames(serverPrototype)).toContain('config');
    expect(Object.getPrototypeOf(sibling)).toBe(serverPrototype);
    expect(Object.getPrototypeOf(stranger)).not.toBe(serverPrototype);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(stranger))).toBe(
      Object.getPrototypeOf(serverPrototype),
    );
    expect((connection as unknown as { queued: number }).queued).toBe(0);
    await remote.send(req('who', 1));
    expect(await remote.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"memory"}');
    expect(peer).toBe(connection);
  });
});

describe('server.parse', () => {
  it('is how its connections parse: a transport may hand them a message parsed once', async () => {
    const server = createServer({ maxBatchSize: 1 });
    server.method('add', ([a, b]: [number, number]) => a + b);
    const handlers: TransportHandler[] = [];
    const sent: string[] = [];
    const transport: Transport = {
      callsHandlerMethods: true,
      start(handler) {
        handlers.push(handler);
        return Promise.resolve();
      },
      send(text) {
        sent.push(text);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    const connection = server.connect(transport);
    open.push(connection);
    await sleep(0);
    const handler = handlers[0]!;
    expect(handler.parse).toBe(server.parse);
    // The server's own settings apply: a batch of two is over its limit.
    expect(server.parse('[1,2]')).toMatchObject({ kind: 'invalid', error: { code: -32003 } });
    const text = '{"jsonrpc":"2.0","id":7,"method":"add","params":[2,3]}';
    handler.onParsed!(server.parse(text), text);
    await sleep(0);
    expect(sent).toEqual(['{"jsonrpc":"2.0","id":7,"result":5}']);
  });
});
