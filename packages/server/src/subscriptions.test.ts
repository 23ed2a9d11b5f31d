import {
  createMemoryTransportPair,
  ethereumSubscriptions,
  genericSubscriptions,
  losslessNumbers,
  type Transport,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from './server.js';
import type { Connection, Server } from './server-types.js';
import type { SubscriptionFanout } from './subscription-fanout.js';
import { createSubscriptions } from './subscriptions.js';

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

interface Remote {
  readonly inbox: string[];
  send(text: string): Promise<void>;
  /** Waits (bounded) until `count` messages are in the inbox. */
  until(count: number): Promise<void>;
  close(): Promise<void>;
}

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

/** A transport whose sends wait until `release()`: a peer that stopped reading. */
function gated(inner: Transport): Transport & { release(): void; sent: number } {
  let gate: { promise: Promise<void>; resolve: () => void } | undefined;
  const self = {
    sent: 0,
    start: (handler: TransportHandler) => inner.start(handler),
    close: (reason?: unknown) => inner.close(reason),
    send(text: string): Promise<void> {
      self.sent++;
      void inner.send(text);
      if (gate === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => {
          resolve = r;
        });
        gate = { promise, resolve };
      }
      return gate.promise;
    },
    release() {
      gate?.resolve();
      gate = undefined;
    },
  };
  return self;
}

/** A params schema whose check waits until `release()`: a subscribe held mid-way. */
function gatedSchema() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const schema = {
    '~standard': {
      version: 1 as const,
      vendor: 'test',
      validate: async (value: unknown) => {
        await gate;
        return { value };
      },
    },
  };
  return { schema, release };
}

async function connect(server: Server, wrap?: (t: Transport) => Transport): Promise<Remote> {
  const [a, b] = createMemoryTransportPair();
  const connection = server.connect(wrap === undefined ? b : wrap(b), { kind: 'memory' });
  open.push(connection);
  const inbox: string[] = [];
  await a.start({ onMessage: (m) => inbox.push(m), onClose: () => undefined });
  return {
    inbox,
    send: (text) => a.send(text),
    async until(count) {
      for (let i = 0; i < 400 && inbox.length < count; i++) await tick();
      expect(inbox.length).toBeGreaterThanOrEqual(count);
    },
    close: () => a.close(),
  };
}

describe('createSubscriptions, Ethereum dialect on the wire', () => {
  it('answers eth_subscribe with an opaque id, pushes eth_subscription, eth_unsubscribe answers true', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, { dialect: ethereumSubscriptions });
    subs.subscription('newHeads', (_params, ctx) => {
      ctx.emit({ number: '0x1' });
    });
    const remote = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    await remote.until(2);
    const answer = JSON.parse(remote.inbox[0]!) as { id: number; result: string };
    expect(answer.id).toBe(1);
    expect(answer.result).toMatch(/^0x[0-9a-f]{32}$/);
    const id = answer.result;
    expect(remote.inbox[1]).toBe(
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x1"}}}`,
    );
    subs.publish('newHeads', { number: '0x2' });
    await remote.until(3);
    expect(JSON.parse(remote.inbox[2]!).params).toEqual({
      subscription: id,
      result: { number: '0x2' },
    });
    await remote.send(`{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["${id}"]}`);
    await remote.until(4);
    expect(remote.inbox[3]).toBe('{"jsonrpc":"2.0","id":2,"result":true}');
    expect(subs.count()).toBe(0);
    await remote.send(`{"jsonrpc":"2.0","id":3,"method":"eth_unsubscribe","params":["${id}"]}`);
    await remote.until(5);
    expect(remote.inbox[4]).toBe('{"jsonrpc":"2.0","id":3,"result":false}');
  });

  it('refuses an unknown kind and bad params with -32602, and stays empty', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, { dialect: ethereumSubscriptions });
    subs.subscription('logs', undefined, { params: v.tuple([v.object({ address: v.string() })]) });
    const remote = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["nope"]}');
    await remote.send('{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["logs",{}]}');
    await remote.until(2);
    for (const text of remote.inbox) expect(JSON.parse(text).error.code).toBe(-32602);
    expect(subs.count()).toBe(0);
  });

  it('an id of one connection cannot unsubscribe another connection', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, { dialect: ethereumSubscriptions });
    subs.subscription('newHeads');
    const first = await connect(server);
    const second = await connect(server);
    await first.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    await first.until(1);
    const id = JSON.parse(first.inbox[0]!).result as string;
    await second.send(`{"jsonrpc":"2.0","id":1,"method":"eth_unsubscribe","params":["${id}"]}`);
    await second.until(1);
    expect(second.inbox[0]).toBe('{"jsonrpc":"2.0","id":1,"result":false}');
    expect(subs.count()).toBe(1);
  });

  it('over handle() (no connection) answers that subscriptions need one', async () => {
    const server = createServer();
    createSubscriptions(server, { dialect: ethereumSubscriptions }).subscription('newHeads');
    const answer = await server.handle(
      '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
    );
    expect(JSON.parse(answer!).error).toEqual({
      code: -32601,
      message: 'Subscriptions need a duplex connection',
    });
  });
});

describe('createSubscriptions, generic dialect and producers', () => {
  it('runs an async iterable until it ends, then sends subscription.end', async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    subs.subscription('count', async function* (params: { to: number }) {
      for (let i = 1; i <= params.to; i++) yield i;
    });
    const remote = await connect(server);
    await remote.send(
      '{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"count","params":{"to":2}}}',
    );
    await remote.until(4);
    const id = JSON.parse(remote.inbox[0]!).result as string;
    expect(remote.inbox.slice(1)).toEqual([
      `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"${id}","item":1}}`,
      `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"${id}","item":2}}`,
      `{"jsonrpc":"2.0","method":"subscription.end","params":{"subscription":"${id}"}}`,
    ]);
    expect(subs.count()).toBe(0);
  });

  it('items emitted while subscribing go out after the answer', async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    subs.subscription('now', (_p, ctx) => {
      ctx.emit('first');
    });
    const remote = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"now"}}');
    await remote.until(2);
    expect(JSON.parse(remote.inbox[0]!).id).toBe(1);
    expect(JSON.parse(remote.inbox[1]!).params.item).toBe('first');
  });

  it('a producer that throws refuses the subscription (-32603 for a non-JsonRpcError)', async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    subs.subscription('secret', () => {
      throw new (class extends Error {})('boom');
    });
    const remote = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"secret"}}');
    await remote.until(1);
    expect(JSON.parse(remote.inbox[0]!).error.code).toBe(-32603);
    expect(subs.count()).toBe(0);
  });

  it('runs the cleanup and aborts the signal on unsubscribe, connection close and close()', async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    let cleanups = 0;
    const signals: AbortSignal[] = [];
    subs.subscription('x', (_p, ctx) => {
      signals.push(ctx.signal);
      return () => {
        cleanups++;
      };
    });
    const a = await connect(server);
    const b = await connect(server);
    const c = await connect(server);
    for (const r of [a, b, c]) {
      await r.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"x"}}');
      await r.until(1);
    }
    expect(subs.count('x')).toBe(3);
    expect(subs.connections).toBe(3);
    const id = JSON.parse(a.inbox[0]!).result as string;
    await a.send(
      `{"jsonrpc":"2.0","id":2,"method":"unsubscribe","params":{"subscription":"${id}"}}`,
    );
    await a.until(2);
    expect(cleanups).toBe(1);
    await b.close();
    for (let i = 0; i < 100 && cleanups < 2; i++) await tick();
    expect(cleanups).toBe(2);
    await subs.close();
    expect(cleanups).toBe(3);
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(subs.count()).toBe(0);
    expect(subs.connections).toBe(0);
    // close() removed the methods
    expect(server.methods().map((m) => m.name)).toEqual([]);
  });

  it('server.close() ends every subscription', async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    let cleanups = 0;
    subs.subscription('x', () => () => {
      cleanups++;
    });
    const a = await connect(server);
    await a.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"x"}}');
    await a.until(1);
    await server.close();
    for (let i = 0; i < 100 && cleanups < 1; i++) await tick();
    expect(cleanups).toBe(1);
    expect(subs.count()).toBe(0);
  });

  it('checks items against the item schema when validation is on', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, { validateItems: true });
    subs.subscription('n', undefined, { item: v.number() });
    expect(() => subs.publish('n', 'x')).not.toThrow(); // no subscriber: nothing checked
    const remote = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"n"}}');
    await remote.until(1);
    expect(() => subs.publish('n', 'x')).toThrow(/Item of subscription "n" breaks its schema/);
    expect(subs.publish('n', 1)).toBe(1);
  });

  it('publish serializes the item once for every subscriber', async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    subs.subscription('t');
    const remotes = [await connect(server), await connect(server), await connect(server)];
    for (const r of remotes) {
      await r.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"t"}}');
      await r.until(1);
    }
    let calls = 0;
    const item = {
      toJSON() {
        calls++;
        return 7;
      },
    };
    expect(subs.publish('t', item)).toBe(3);
    expect(calls).toBe(1);
    for (const r of remotes) {
      await r.until(2);
      expect(JSON.parse(r.inbox[1]!).params.item).toBe(7);
    }
  });

  it("sends each item straight to the connection's transport: no notify, no connection hop", async () => {
    const server = createServer();
    const subs = createSubscriptions(server);
    subs.subscription('t');
    const notified: string[] = [];
    let texts = 0;
    let transportSends = 0;
    const connected = server.connect;
    server.connect = (transport, context) => {
      const connection = connected(transport, context);
      const { notify, sendText } = connection;
      // The connection's methods live on its class: call them on it.
      connection.notify = (method, params) => {
        notified.push(method);
        return notify.call(connection, method, params);
      };
      connection.sendText = (text) => {
        texts++;
        return sendText.call(connection, text);
      };
      return connection;
    };
    const remote = await connect(server, (inner) => ({
      start: (handler) => inner.start(handler),
      close: (reason) => inner.close(reason),
      send(text) {
        transportSends++;
        return inner.send(text);
      },
    }));
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"t"}}');
    await remote.until(1);
    const answers = transportSends;
    subs.publish('t', { n: 1 });
    await tick();
    subs.publish('t', { n: 2 });
    await subs.close();
    await remote.until(4);
    // The two items and the end: one transport send each, none through the connection.
    expect(transportSends - answers).toBe(3);
    expect(texts).toBe(0);
    expect(notified).toEqual([]);
    const id = JSON.parse(remote.inbox[0]!).result as string;
    expect(remote.inbox.slice(1)).toEqual([
      `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"${id}","item":{"n":1}}}`,
      `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"${id}","item":{"n":2}}}`,
      `{"jsonrpc":"2.0","method":"subscription.end","params":{"subscription":"${id}"}}`,
    ]);
  });
});

describe("createSubscriptions and the server's codec", () => {
  it('encodes items with it, as results are: a BigInt item goes out as a plain number', async () => {
    const server = createServer({ codec: losslessNumbers });
    const subs = createSubscriptions(server, { dialect: ethereumSubscriptions });
    subs.subscription('big', (_params, ctx) => {
      ctx.emit({ value: 2n ** 64n + 1n });
    });
    const remote = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["big"]}');
    await remote.until(2);
    const id = (JSON.parse(remote.inbox[0]!) as { result: string }).result;
    expect(remote.inbox[1]).toBe(
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"value":18446744073709551617}}}`,
    );
  });
});

describe('createSubscriptions, a subscriber that stops reading', () => {
  async function slow(overflow: 'drop-oldest' | 'drop-newest' | 'close') {
    const server = createServer();
    const errors: unknown[] = [];
    const subs = createSubscriptions(server, {
      maxQueue: 3,
      overflow,
      onError: (e) => errors.push(e),
    });
    subs.subscription('t');
    let transport!: ReturnType<typeof gated>;
    const remote = await connect(server, (t) => (transport = gated(t)));
    const fast = await connect(server);
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"t"}}');
    await fast.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"t"}}');
    await remote.until(1);
    await fast.until(1);
    transport.release();
    await tick();
    for (let i = 1; i <= 10; i++) {
      subs.publish('t', i);
      await tick();
    }
    await fast.until(11);
    const sentWhileStuck = transport.sent;
    for (let i = 0; i < 20; i++) {
      transport.release();
      await tick();
    }
    const items = remote.inbox.slice(1).map((t) => JSON.parse(t).params?.item);
    return { subs, errors, items, sentWhileStuck, fast };
  }

  it('drop-oldest keeps the newest items and never blocks the others', async () => {
    const { items, fast, subs, sentWhileStuck } = await slow('drop-oldest');
    expect(sentWhileStuck).toBe(4); // the answer, then three items in the transport's hands
    expect(fast.inbox).toHaveLength(11);
    expect(items).toEqual([1, 2, 3, 8, 9, 10]);
    expect(subs.count()).toBe(2);
  });

  it('drop-newest keeps the oldest items', async () => {
    const { items } = await slow('drop-newest');
    expect(items).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('close ends that subscription with SUBSCRIPTION_OVERFLOW and tells the subscriber', async () => {
    const { items, errors, subs } = await slow('close');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'SUBSCRIPTION_OVERFLOW' });
    expect(subs.count()).toBe(1);
    // three were in the transport's hands, three waited; then subscription.end, after them
    expect(items).toEqual([1, 2, 3, 4, 5, 6, undefined]);
  });
});

describe('createSubscriptions, the end of a producer that finished before a slow subscriber read', () => {
  /**
   * A producer yields `count` items and finishes while its subscriber has stopped reading
   * (maxQueue 3): the end must follow what the queue kept, never overtake it.
   */
  async function finishWhileStuck(
    overflow: 'drop-oldest' | 'drop-newest' | 'close',
    count: number,
  ) {
    const server = createServer();
    const subs = createSubscriptions(server, { maxQueue: 3, overflow, onError: () => undefined });
    let finished = false;
    subs.subscription('burst', async function* () {
      for (let i = 1; i <= count; i++) yield i;
      finished = true;
    });
    let transport!: ReturnType<typeof gated>;
    const remote = await connect(server, (t) => (transport = gated(t)));
    await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"burst"}}');
    await remote.until(1);
    // The answer's send stays unresolved: the subscriber does not read.
    for (let i = 0; i < 50 && !finished; i++) await tick();
    expect(finished).toBe(true);
    for (let i = 0; i < 5; i++) await tick();
    const beforeRelease = remote.inbox.length;
    // Read again, until nothing more comes (bounded).
    for (let i = 0; i < 50; i++) {
      transport.release();
      await tick();
    }
    const id = JSON.parse(remote.inbox[0]!).result as string;
    const rest = remote.inbox.slice(1).map((t) => JSON.parse(t) as { method: string; params: any });
    return { id, rest, beforeRelease, subs };
  }

  it('drop-oldest: every kept item, then the end', async () => {
    const { id, rest, subs } = await finishWhileStuck('drop-oldest', 8);
    expect(rest.map((m) => m.params.item)).toEqual([1, 2, 3, 6, 7, 8, undefined]);
    expect(rest.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'subscription.end',
      params: { subscription: id },
    });
    expect(subs.count()).toBe(0);
  });

  it('drop-newest: the oldest items, then the end', async () => {
    const { rest } = await finishWhileStuck('drop-newest', 8);
    expect(rest.map((m) => m.params.item)).toEqual([1, 2, 3, 4, 5, 6, undefined]);
    expect(rest.at(-1)?.method).toBe('subscription.end');
  });

  it('nothing overflowed: all items, then the end, and the end waits for the reader', async () => {
    const { rest, beforeRelease } = await finishWhileStuck('close', 5);
    // three in the transport's hands while stuck; the rest and the end only once it reads
    expect(beforeRelease).toBe(4);
    expect(rest.map((m) => m.params.item)).toEqual([1, 2, 3, 4, 5, undefined]);
    expect(rest.at(-1)?.method).toBe('subscription.end');
  });
});

it('the default dialect is the generic one', () => {
  const server = createServer();
  createSubscriptions(server);
  expect(server.methods().map((m) => m.name)).toEqual([
    genericSubscriptions.subscribe,
    genericSubscriptions.unsubscribe,
  ]);
});

it('a subscribe still checking its params when the connection closes leaves nothing behind', async () => {
  const server = createServer();
  const subs = createSubscriptions(server);
  const { schema: slowSchema, release } = gatedSchema();
  let started = 0;
  subs.subscription(
    'slow',
    () => {
      started++;
    },
    { params: slowSchema },
  );
  subs.subscription('fast');
  const remote = await connect(server);
  // A first subscription makes the registry watch this connection's close.
  await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"fast"}}');
  await remote.until(1);
  await remote.send('{"jsonrpc":"2.0","id":2,"method":"subscribe","params":{"name":"slow"}}');
  await tick();
  await remote.close();
  for (let i = 0; i < 50 && subs.count() > 0; i++) await tick();
  release();
  for (let i = 0; i < 10; i++) await tick();
  expect(started).toBe(0);
  expect(subs.count()).toBe(0);
  expect(subs.connections).toBe(0);
});

it('a subscribe still checking its params when close() is called is refused and leaves nothing', async () => {
  const server = createServer();
  const subs = createSubscriptions(server);
  const { schema: slowSchema, release } = gatedSchema();
  let started = 0;
  subs.subscription('slow', () => void started++, { params: slowSchema });
  const remote = await connect(server);
  await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"slow"}}');
  await tick();
  await subs.close();
  release();
  await remote.until(1);
  expect(JSON.parse(remote.inbox[0]!).error.code).toBe(-32602);
  expect(started).toBe(0);
  expect(subs.count()).toBe(0);
});

it('a subscription removed while a subscribe checks its params refuses that subscribe', async () => {
  const server = createServer();
  const subs = createSubscriptions(server);
  const { schema: slowSchema, release } = gatedSchema();
  let started = 0;
  const remove = subs.subscription('slow', () => void started++, { params: slowSchema });
  const remote = await connect(server);
  await remote.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"name":"slow"}}');
  await tick();
  remove();
  release();
  await remote.until(1);
  expect(JSON.parse(remote.inbox[0]!).error.code).toBe(-32602);
  expect(started).toBe(0);
  expect(subs.count()).toBe(0);
});

describe('createSubscriptions, subscriptions per connection', () => {
  const subscribe = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"eth_subscribe","params":["newHeads"]}`;

  it('refuses the subscribe past the default limit (1024) with -32002 naming it; other connections go on', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, { dialect: ethereumSubscriptions });
    subs.subscription('newHeads');
    const remote = await connect(server);
    // All at once: the ones still subscribing count as much as the live ones.
    for (let id = 1; id <= 1025; id++) void remote.send(subscribe(id));
    await remote.until(1025);
    const answers = remote.inbox.map((text) => JSON.parse(text) as Record<string, any>);
    const refused = answers.filter((answer) => answer.error !== undefined);
    expect(refused).toEqual([
      {
        jsonrpc: '2.0',
        id: 1025,
        error: {
          code: -32002,
          message: 'Too many subscriptions on this connection (limit 1024)',
          data: { limit: 1024 },
        },
      },
    ]);
    expect(subs.count()).toBe(1024);
    const other = await connect(server);
    await other.send(subscribe(1));
    await other.until(1);
    expect(JSON.parse(other.inbox[0]!).result).toMatch(/^0x/);
    expect(subs.count()).toBe(1025);
  });

  it('maxSubscriptionsPerConnection: refused at the limit, room again after an unsubscribe', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, {
      dialect: ethereumSubscriptions,
      maxSubscriptionsPerConnection: 2,
    });
    subs.subscription('newHeads');
    const remote = await connect(server);
    await remote.send(subscribe(1));
    await remote.send(subscribe(2));
    await remote.until(2);
    await remote.send(subscribe(3));
    await remote.until(3);
    expect(remote.inbox[2]).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Too many subscriptions on this connection (limit 2)","data":{"limit":2}}}',
    );
    const first = JSON.parse(remote.inbox[0]!).result as string;
    await remote.send(`{"jsonrpc":"2.0","id":4,"method":"eth_unsubscribe","params":["${first}"]}`);
    await remote.until(4);
    expect(remote.inbox[3]).toBe('{"jsonrpc":"2.0","id":4,"result":true}');
    await remote.send(subscribe(5));
    await remote.until(5);
    expect(JSON.parse(remote.inbox[4]!)).toMatchObject({
      id: 5,
      result: expect.stringMatching(/^0x/),
    });
    expect(subs.count()).toBe(2);
  });

  it('refuses a limit that is not a positive number', () => {
    const server = createServer();
    expect(() => createSubscriptions(server, { maxSubscriptionsPerConnection: 0 })).toThrow(
      RangeError,
    );
    expect(() => createSubscriptions(server, { maxQueueBytesPerConnection: -1 })).toThrow(
      RangeError,
    );
  });
});

describe('createSubscriptions, one budget for all subscriptions of a connection', () => {
  const ITEM = 'x'.repeat(16 * 1024);
  const subscribe = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"subscribe","params":{"name":"blobs"}}`;

  it('20 subscriptions of a subscriber that never reads hold one budget, and the others are served', async () => {
    const server = createServer();
    const subs = createSubscriptions(server, { maxQueueBytesPerConnection: 1024 * 1024 });
    subs.subscription('blobs');
    let transport!: ReturnType<typeof gated>;
    const stuck = await connect(server, (t) => (transport = gated(t)));
    const reader = await connect(server);
    for (let id = 1; id <= 20; id++) await stuck.send(subscribe(id));
    await stuck.until(20);
    await reader.send(subscribe(1));
    await reader.until(1);
    await tick();
    // From here on the stuck subscriber's transport never resolves a send: it does not read.
    const answers = transport.sent;
    const itemSize = ITEM.length + 200; // the item's text and its envelope
    let most = { handed: 0, held: 0 };
    for (let i = 0; i < 3_000; i++) {
      expect(subs.publish('blobs', ITEM)).toBe(21);
      const handed = (transport.sent - answers) * itemSize;
      most = {
        handed: Math.max(most.handed, handed),
        held: Math.max(most.held, subs.held().bytes),
      };
      if (handed > 8 * 1024 * 1024) break; // far past the bound: stop before memory grows
      if (i % 100 === 99) await tick();
    }
    // Half the budget in the transport's hands (and one item over), as much waiting.
    expect(most.handed).toBeLessThanOrEqual(512 * 1024 + itemSize);
    expect(most.held).toBeLessThanOrEqual(1024 * 1024 + itemSize);
    await reader.until(3_001);
    expect(reader.inbox).toHaveLength(3_001);
    expect(subs.count()).toBe(21);
    // Once it reads again, what was kept goes out (the newest items) and nothing is held.
    for (let i = 0; i < 200 && subs.held().items > 0; i++) {
      transport.release();
      await tick();
    }
    expect(subs.held()).toEqual({ items: 0, bytes: 0 });
    subs.publish('blobs', 'after');
    await stuck.until(transport.sent);
    expect(JSON.parse(stuck.inbox.at(-1)!).params.item).toBe('after');
  });

  it('close: a subscription that finds the budget full ends with SUBSCRIPTION_OVERFLOW', async () => {
    const server = createServer();
    const errors: unknown[] = [];
    const subs = createSubscriptions(server, {
      maxQueueBytesPerConnection: 20 * ITEM.length,
      overflow: 'close',
      onError: (error) => errors.push(error),
    });
    subs.subscription('blobs');
    let transport!: ReturnType<typeof gated>;
    const stuck = await connect(server, (t) => (transport = gated(t)));
    await stuck.send(subscribe(1));
    await stuck.send(subscribe(2));
    await stuck.until(2);
    await tick();
    for (let i = 0; i < 30 && errors.length === 0; i++) subs.publish('blobs', ITEM);
    expect(errors[0]).toMatchObject({ code: 'SUBSCRIPTION_OVERFLOW' });
    expect(subs.count()).toBeLessThan(2);
    expect(subs.held().bytes).toBeLessThanOrEqual(20 * ITEM.length + 2 * (ITEM.length + 200));
    transport.release();
  });
});

describe('what publish() counts', () => {
  it("with a fan-out, this process's live subscriptions only, though every process's get it", async () => {
    // Two "processes" (two servers) on one in-memory fan-out.
    const listeners = new Map<string, Set<(text: string) => void>>();
    const fanout: SubscriptionFanout = {
      publishText: async (topic, text) => {
        for (const listener of listeners.get(topic) ?? []) listener(text);
      },
      subscribeText: async (topic, listener) => {
        let set = listeners.get(topic);
        if (set === undefined) listeners.set(topic, (set = new Set()));
        set.add(listener);
        return async () => void set.delete(listener);
      },
    };
    const here = createServer();
    const there = createServer();
    const hereSubs = createSubscriptions(here, { dialect: ethereumSubscriptions, fanout });
    const thereSubs = createSubscriptions(there, { dialect: ethereumSubscriptions, fanout });
    hereSubs.subscription('newHeads');
    thereSubs.subscription('newHeads');
    const remotes = [await connect(here), await connect(there), await connect(there)];
    for (const remote of remotes) {
      await remote.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
      await remote.until(1);
    }
    expect(hereSubs.publish('newHeads', { number: '0x1' })).toBe(1);
    for (const remote of remotes) {
      await remote.until(2);
      expect(remote.inbox[1]).toContain('"result":{"number":"0x1"}');
    }
    expect(thereSubs.publish('newHeads', { number: '0x2' })).toBe(2);
  });
});
