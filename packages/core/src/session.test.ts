import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { getHeapSnapshot } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionClosedError, TransportError } from './errors.js';
import { createMemoryTransportPair } from './memory-transport.js';
import { type ParseResult, parse } from './parse.js';
import { createSession, type SessionOptions } from './session.js';
import { SENT, type Transport, type TransportHandler } from './transport.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The other end of a pair, answering every request with its id and `result: 3`, as raw text. */
async function answering(side: Transport, received: string[]): Promise<void> {
  await side.start({
    onMessage(text) {
      received.push(text);
      const { id } = JSON.parse(text) as { id: number };
      void side.send(`{"jsonrpc":"2.0","id":${id},"result":3}`);
    },
    onClose() {},
  });
}

/**
 * A transport whose start resolves (or fails) only when the test says so: what it was sent, and
 * its handler. `onSend` runs on each send, after the text is recorded.
 */
function slowStart(onSend?: (handler: TransportHandler) => void) {
  const sent: string[] = [];
  let handler!: TransportHandler;
  let resolveStart!: () => void;
  let failStart!: (error: Error) => void;
  const transport: Transport = {
    start: (h) => {
      handler = h;
      return new Promise<void>((resolve, reject) => {
        resolveStart = resolve;
        failStart = reject;
      });
    },
    send: (text) => {
      sent.push(text);
      onSend?.(handler);
      return SENT;
    },
    close: () => Promise.resolve(),
  };
  return {
    transport,
    sent,
    resolveStart: () => resolveStart(),
    failStart: (e: Error) => failStart(e),
  };
}

describe('session sends', () => {
  it('watches no send that the transport reports as already done (SENT)', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const received: string[] = [];
    await answering(theirs, received);
    const session = createSession(mine, { report: () => {} });
    session.start(() => undefined);
    await Promise.resolve(); // the transport has started: sends go straight to it
    const then = vi.spyOn(SENT, 'then');
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => session.request('add', [i, 1])),
    );
    expect(results).toEqual(Array.from({ length: 100 }, () => 3));
    expect(received[0]).toBe('{"jsonrpc":"2.0","id":1,"method":"add","params":[0,1]}');
    // Counting work: no failure handler per call on a send that cannot fail any more.
    expect(then).not.toHaveBeenCalled();
    await session.close();
  });

  it('offers its transport as direct only while sends go straight to it', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    await theirs.start({ onMessage() {}, onClose() {} });
    const session = createSession(mine, { report: () => {} });
    expect(session.directTransport).toBeUndefined(); // not started
    session.start(() => undefined);
    expect(session.directTransport).toBeUndefined(); // start not resolved: sends are deferred
    await Promise.resolve();
    expect(session.directTransport).toBe(mine);
    await session.close();
    expect(session.directTransport).toBeUndefined();
  });

  it('keeps the order of sends made before start, while it runs and just after', async () => {
    const { transport, sent, resolveStart } = slowStart();
    const session = createSession(transport, { report: () => {} });
    const sends = [session.send('a')]; // before start
    session.start(() => undefined);
    sends.push(session.send('b'), session.send('c')); // while the transport starts
    resolveStart();
    // Sends made turn by turn from the moment the start resolves: none may pass a waiting one.
    for (let i = 0; i < 6; i++) {
      sends.push(session.send(`d${i}`));
      await Promise.resolve();
    }
    await Promise.all(sends);
    expect(sent).toEqual(['a', 'b', 'c', 'd0', 'd1', 'd2', 'd3', 'd4', 'd5']);
    expect(session.directTransport).toBe(transport); // nothing waits any more
    await session.close();
  });

  it('rejects the sends that waited for a start that failed, and any made after the close', async () => {
    const { transport, sent, failStart } = slowStart();
    const reported: unknown[] = [];
    const session = createSession(transport, { report: (error) => reported.push(error) });
    session.start(() => undefined);
    const waiting = [session.send('a'), session.send('b')];
    failStart(new Error('no such pipe'));
    for (const send of waiting) await expect(send).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(session.isClosed).toBe(true);
    await expect(session.send('c')).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(sent).toEqual([]);
    expect(reported).toEqual([expect.objectContaining({ message: 'no such pipe' })]);
  });

  it('sends a waiting message once when sending an earlier one closes the session', async () => {
    // The peer goes away while each text is written.
    const { transport, sent, resolveStart } = slowStart((handler) => handler.onClose());
    const session = createSession(transport, { report: () => {} });
    session.start(() => undefined);
    const a = session.send('a');
    const b = session.send('b');
    resolveStart();
    await a;
    await expect(b).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(sent).toEqual(['a']);
    expect(session.isClosed).toBe(true);
  });

  it("runs a send made before the start in its caller's async context (trace propagation)", async () => {
    const caller = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const { transport, resolveStart } = slowStart(() => seen.push(caller.getStore()));
    const session = createSession(transport, { report: () => {} });
    session.start(() => undefined);
    const sent = caller.run('the caller', () => session.send('a'));
    resolveStart();
    await sent;
    expect(seen).toEqual(['the caller']);
    await session.close();
  });

  it('still fails the call when a send returns its own promise and it rejects', async () => {
    const [mine] = createMemoryTransportPair();
    const failing: Transport = {
      start: (handler) => mine.start(handler),
      send: () => Promise.reject(new Error('EPIPE')),
      close: (reason) => mine.close(reason),
    };
    const session = createSession(failing, { report: () => {} });
    session.start(() => undefined);
    await Promise.resolve(); // the transport has started
    const error = await session.request('add', [1, 2]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).message).toContain('EPIPE');
    expect(session.pending.size).toBe(0);
    await session.close();
  });

  it('reports a failed answer send that returned its own promise', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const reports: { error: Error; kind: string }[] = [];
    const failing: Transport = {
      start: (handler) => mine.start(handler),
      send: () => Promise.reject(new Error('EPIPE')),
      close: (reason) => mine.close(reason),
    };
    await theirs.start({ onMessage() {}, onClose() {} });
    const session = createSession(failing, {
      report: (error, info) => reports.push({ error, kind: info.kind }),
    });
    session.start(() => '{"jsonrpc":"2.0","id":7,"result":1}');
    await theirs.send('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    await vi.waitFor(() => expect(reports).toHaveLength(1), { timeout: 1000 });
    expect(reports[0]!.kind).toBe('send-failed');
    expect(reports[0]!.error.message).toContain('EPIPE');
    await session.close();
  });

  /**
   * A transport that writes each turn's messages together, as stdio does: every send of a turn
   * gets the turn's one promise, settled when the turn's write is done (or failed). Counts the
   * handlers attached to those promises.
   */
  function turnTransport(inner: Transport, fail: () => Error | undefined) {
    let turn: { promise: Promise<void>; texts: string[] } | undefined;
    const watches: { mock: { calls: unknown[] } }[] = [];
    const counts = {
      get turns() {
        return watches.length;
      },
      get handlers() {
        return watches.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
      },
    };
    const transport: Transport = {
      start: (handler) => inner.start(handler),
      send(text) {
        if (turn === undefined) {
          const texts: string[] = [];
          const promise = new Promise<void>((resolve, reject) =>
            setImmediate(() => {
              turn = undefined;
              const error = fail();
              if (error !== undefined) return reject(error);
              for (const one of texts) void inner.send(one);
              resolve();
            }),
          );
          watches.push(vi.spyOn(promise, 'then'));
          turn = { promise, texts };
        }
        turn.texts.push(text);
        return turn.promise;
      },
      close: (reason) => inner.close(reason),
    };
    return { transport, counts };
  }

  it('watches a promise that many sends share once, not once per send', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const received: string[] = [];
    await answering(theirs, received);
    const { transport, counts } = turnTransport(mine, () => undefined);
    const session = createSession(transport, { report: () => {} });
    session.start(() => undefined);
    await Promise.resolve();
    const calls = Array.from({ length: 50 }, (_, i) => session.request('add', [i, 1]));
    // Counting work: one handler for the turn's promise, not a closure and a reaction per call.
    expect([counts.turns, counts.handlers]).toEqual([1, 1]);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 50 }, () => 3));
    expect(received).toHaveLength(50);
    await session.close();
  });

  it('fails every call of a shared send that failed, each with its own method and id', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const received: string[] = [];
    await answering(theirs, received);
    let failNext = true;
    const { transport, counts } = turnTransport(mine, () => {
      const error = failNext ? new Error('EPIPE') : undefined;
      failNext = false;
      return error;
    });
    const session = createSession(transport, { report: () => {} });
    session.start(() => undefined);
    await Promise.resolve();
    const failed = (await Promise.all(
      ['a', 'b', 'c'].map((method) => session.request(method).catch((e: unknown) => e)),
    )) as TransportError[];
    expect(failed.every((e) => e instanceof TransportError && /EPIPE/.test(e.message))).toBe(true);
    expect(failed.map((e) => e.method)).toEqual(['a', 'b', 'c']);
    expect(new Set(failed.map((e) => e.id)).size).toBe(3);
    expect(session.pending.size).toBe(0);
    // The next turn's promise is watched anew: its call goes out and is answered.
    expect(await session.request('d')).toBe(3);
    expect([counts.turns, counts.handlers]).toEqual([2, 2]);
    await session.close();
  });

  it('reports each answer of a shared send that failed, with its own id, on one handler', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    await theirs.start({ onMessage() {}, onClose() {} });
    const { transport, counts } = turnTransport(mine, () => new Error('EPIPE'));
    const reports: { message: string; id?: unknown }[] = [];
    const session = createSession(transport, {
      report: (error, info) => reports.push({ message: error.message, id: info.id }),
    });
    session.start((parsed) =>
      parsed.kind === 'request'
        ? `{"jsonrpc":"2.0","id":${parsed.message.id},"result":1}`
        : undefined,
    );
    await Promise.resolve();
    await Promise.all(
      [2, 3, 4].map((id) => theirs.send(`{"jsonrpc":"2.0","id":${id},"method":"m"}`)),
    );
    await vi.waitFor(() => expect(reports.length).toBeGreaterThanOrEqual(3), { timeout: 1000 });
    expect(reports.every((r) => /EPIPE/.test(r.message))).toBe(true);
    expect(reports.map((r) => r.id)).toEqual([2, 3, 4]);
    expect(counts.handlers).toBe(counts.turns);
    await session.close();
  });

  it('holds no table, map, set or AbortController while idle, and makes them on first use', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const received: string[] = [];
    await answering(theirs, received);
    const made = {
      AbortController: vi.spyOn(globalThis, 'AbortController'),
      Map: vi.spyOn(globalThis, 'Map'),
      Set: vi.spyOn(globalThis, 'Set'),
    };
    const session = createSession(mine, { report: () => {} });
    session.start(() => undefined);
    await Promise.resolve();
    // Counting work: a server holds one session per connection, most of them idle.
    expect(made.AbortController).not.toHaveBeenCalled();
    expect(made.Map).not.toHaveBeenCalled();
    expect(made.Set).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(session.incoming.size).toBe(0);
    expect(await session.request('add', [1, 2])).toBe(3);
    expect(session.pending.size).toBe(0);
    expect(session.signal.aborted).toBe(false);
    await session.close();
    expect(session.signal.aborted).toBe(true);
  });

  it('aborts a signal first read after the close with the close reason', async () => {
    const [mine] = createMemoryTransportPair();
    const session = createSession(mine, { report: () => {}, closeReason: () => 'gone' });
    session.start(() => undefined);
    await session.close();
    expect(session.signal.aborted).toBe(true);
    expect(session.signal.reason).toBe('gone');
  });

  it('makes one promise while idle (none for `closed` until read) and one handler object', async () => {
    const handlers: TransportHandler[] = [];
    const started = Promise.resolve();
    const transport = (): Transport => ({
      start(handler) {
        handlers.push(handler);
        return started;
      },
      send: () => SENT,
      close: () => started,
    });
    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'PROMISE') promises++;
      },
    });
    hook.enable();
    const first = createSession(transport(), { report: () => {} });
    first.start(() => undefined);
    hook.disable();
    // Counting work: the one promise is the start's continuation, dropped once it ran.
    expect(promises).toBeLessThanOrEqual(1);
    const second = createSession(transport(), { report: () => {}, maxMessageBytes: 10 });
    second.start(() => undefined);
    const [a, b] = handlers as [TransportHandler, TransportHandler];
    expect(a).not.toBe(b);
    expect('maxMessageBytes' in a).toBe(false);
    expect(b.maxMessageBytes).toBe(10);
    expect(a.onTooLarge).toBeUndefined();
    // No owner here listens for reconnects: no member (no closure) for it.
    expect('onReconnect' in a).toBe(false);
    // `closed` still works, read before or after the close.
    const before = first.closed;
    expect(first.closed).toBe(before);
    await first.close();
    await before;
    await second.close();
    await second.closed;
    expect(second.isClosed).toBe(true);
  });
});

describe('the dispatch of a session', () => {
  it('is called on the session options, so one function can serve every session', async () => {
    interface Owner extends SessionOptions {
      readonly name: string;
    }
    const seen: string[] = [];
    // One function for both sessions: no closure per session.
    function dispatch(this: SessionOptions, parsed: ParseResult): undefined {
      if (parsed.kind === 'notification')
        seen.push(`${(this as Owner).name}:${parsed.message.method}`);
      return undefined;
    }
    for (const name of ['a', 'b']) {
      const [mine, theirs] = createMemoryTransportPair();
      const owner: Owner = { name, report: () => {} };
      createSession(mine, owner).start(dispatch);
      await theirs.start({ onMessage() {}, onClose() {} });
      await theirs.send('{"jsonrpc":"2.0","method":"hello"}');
      await theirs.close();
    }
    expect(seen).toEqual(['a:hello', 'b:hello']);
  });
});

/** A transport that calls its handler's members as methods, keeping each handler it is given. */
function linkedTransport(handlers: TransportHandler[]): Transport {
  return {
    callsHandlerMethods: true,
    start(handler) {
      handlers.push(handler);
      return Promise.resolve();
    },
    send: () => SENT,
    close: () => Promise.resolve(),
  };
}

describe('the handler a session gives its transport', () => {
  it('is one object with methods for a transport that calls them as methods', async () => {
    const handlers: TransportHandler[] = [];
    const linked = (): Transport => linkedTransport(handlers);
    const tooLarge: unknown[] = [];
    const errors: Error[] = [];
    const plain = createSession(linked(), { report: (error) => errors.push(error) });
    const options: SessionOptions = {
      report: () => {},
      // Called on the options, as a method of the owner.
      onTooLarge(envelope) {
        tooLarge.push([this === options, envelope.kind]);
      },
    };
    const big = createSession(linked(), options);
    plain.start(() => undefined);
    big.start(() => undefined);
    const [a, b] = handlers as [TransportHandler, TransportHandler];
    // The session itself: no object of its own per session, behaviour on the prototype.
    expect(a).toBe(plain);
    expect(b).toBe(big);
    expect(Object.keys(a)).not.toContain('onMessage');
    expect([a.onTooLarge, a.onReconnect, b.onReconnect]).toEqual([undefined, undefined, undefined]);
    expect(typeof b.onTooLarge).toBe('function');
    b.onTooLarge!(
      { kind: 'notification', id: null, rawId: undefined, method: 'x' },
      new Error('big'),
    );
    expect(tooLarge).toEqual([[true, 'notification']]);
    a.onError!(new TransportError('bad frame'));
    expect(errors.map((error) => error.message)).toEqual(['bad frame']);
    a.onClose(undefined);
    await plain.closed;
    expect(plain.isClosed).toBe(true);
  });

  it('takes a message its transport parsed with its own parser, without parsing it again', async () => {
    const handlers: TransportHandler[] = [];
    const reads: string[] = [];
    const read = (text: string): ParseResult => {
      reads.push(text);
      return parse(text);
    };
    const session = createSession(linkedTransport(handlers), { report: () => {}, parse: read });
    const seen: ParseResult[] = [];
    session.start((parsed) => {
      seen.push(parsed);
      return undefined;
    });
    const handler = handlers[0]!;
    // The parser a transport must use to hand a parsed message on: the session's own.
    expect(handler.parse).toBe(read);
    const text = '{"jsonrpc":"2.0","method":"note","params":[1]}';
    const parsed = handler.parse!(text);
    handler.onParsed!(parsed, text);
    handler.onMessage(text);
    expect(reads).toEqual([text, text]);
    expect(seen[0]).toBe(parsed);
    expect(seen.map((p) => p.kind)).toEqual(['notification', 'notification']);
    // Without a parser of its own, a session reads with core's.
    const plain = createSession(linkedTransport(handlers), { report: () => {} });
    plain.start(() => undefined);
    expect(handlers[1]!.parse).toBe(parse);
    handler.onClose(undefined);
    handlers[1]!.onClose(undefined);
    await Promise.all([session.closed, plain.closed]);
  });

  it('is a plain object with an onReconnect member when the owner listens for reconnections', async () => {
    const handlers: TransportHandler[] = [];
    let reconnects = 0;
    const session = createSession(linkedTransport(handlers), {
      report: () => {},
      maxMessageBytes: 64,
      onReconnect: () => reconnects++,
    });
    session.start(() => undefined);
    const handler = handlers[0];
    expect(handler).not.toBe(session);
    expect(handler!.maxMessageBytes).toBe(64);
    handler!.onReconnect!();
    expect(reconnects).toBe(1);
    handler!.onClose(undefined);
    await session.closed;
  });

  it('survives a wrapper that copies it with a spread (its members are its own)', async () => {
    const [a, b] = createMemoryTransportPair();
    const start = a.start.bind(a);
    const received: string[] = [];
    a.start = (handler) =>
      start({
        ...handler,
        onMessage: (message) => {
          received.push(message);
          handler.onMessage(message);
        },
      });
    const session = createSession(a, { report: () => {} });
    session.start(() => undefined);
    await b.start({ onMessage: () => {}, onClose: () => {} });
    await b.send('{"jsonrpc":"2.0","method":"hello"}');
    await b.close();
    await session.closed;
    expect(received).toEqual(['{"jsonrpc":"2.0","method":"hello"}']);
    expect(session.isClosed).toBe(true);
  });
});

/**
 * The property edges of every heap object whose constructor is `name`: each edge's name, and what
 * it points to as `type:name` (`undefined` is a `hidden` node, named after the runtime's version;
 * a small integer is no edge at all).
 */
async function ownEdgesOf(name: string): Promise<Map<string, string>[]> {
  let text = '';
  for await (const chunk of getHeapSnapshot()) text += chunk;
  const { snapshot, nodes, edges, strings } = JSON.parse(text) as {
    snapshot: {
      meta: {
        node_fields: string[];
        edge_fields: string[];
        node_types: string[][];
        edge_types: string[][];
      };
    };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const { node_fields: nf, edge_fields: ef, node_types: nt, edge_types: et } = snapshot.meta;
  const [typeAt, nameAt, countAt] = ['type', 'name', 'edge_count'].map((f) => nf.indexOf(f));
  const [edgeNameAt, toAt] = ['name_or_index', 'to_node'].map((f) => ef.indexOf(f));
  const found: Map<string, string>[] = [];
  let edge = 0;
  for (let at = 0; at < nodes.length; at += nf.length) {
    const count = nodes[at + countAt!]!;
    if (nt[0]![nodes[at + typeAt!]!] === 'object' && strings[nodes[at + nameAt!]!] === name) {
      const names = new Map<string, string>();
      for (let e = edge; e < edge + count; e++) {
        if (et[0]![edges[e * ef.length]!] !== 'property') continue;
        const to = edges[e * ef.length + toAt!]!;
        names.set(
          strings[edges[e * ef.length + edgeNameAt!]!]!,
          `${nt[0]![nodes[to + typeAt!]!]}:${strings[nodes[to + nameAt!]!]}`,
        );
      }
      found.push(names);
    }
    edge += count;
  }
  return found;
}

describe('what a session holds', () => {
  it('keeps no class brand: no private method of its own makes V8 add one per session', async () => {
    const handlers: TransportHandler[] = [];
    const session = createSession(linkedTransport(handlers), { report: () => {} });
    session.start(() => undefined);
    const handler = handlers[0];
    // Every private member used, so that a brand, if any, is in place.
    void session.request('x').catch(() => {});
    handler!.onMessage('{"jsonrpc":"2.0","id":1,"method":"m"}');
    // The instances (not the prototypes): the objects with the session's fields.
    const sessions = (await ownEdgesOf('SessionImpl')).filter((n) => n.has('#transport'));
    expect(sessions.length).toBeGreaterThan(0);
    // Its fields show as `#name`; a brand would show as a property named after the class.
    for (const edges of sessions) {
      expect([...edges.keys()].filter((n) => n !== '__proto__' && !n.startsWith('#'))).toEqual([]);
    }
    await session.close();
  });

  it('is one object while idle: what calls, a slow answer, the signal or a close need comes later', async () => {
    const handlers: TransportHandler[] = [];
    const session = createSession(linkedTransport(handlers), { report: () => {} });
    // A dispatch of its own name: the session to look at is the one that holds it.
    const answersAtOnce = (): string => '{"jsonrpc":"2.0","id":1,"result":0}';
    session.start(answersAtOnce);
    await Promise.resolve(); // started: sends go straight to the transport
    handlers[0]!.onMessage('{"jsonrpc":"2.0","id":1,"method":"m"}'); // answered at once
    const ours = (edges: Map<string, string>): boolean =>
      edges.get('#dispatch') === 'closure:answersAtOnce';
    const idle = (await ownEdgesOf('SessionImpl')).filter(ours);
    expect(idle).toHaveLength(1);
    // Its transport, options and dispatch, and the rest still empty. (Its flags are a small
    // integer: no edge.)
    expect([...idle[0]!.keys()].filter((n) => n.startsWith('#')).sort()).toEqual([
      '#dispatch',
      '#extras',
      '#options',
      '#transport',
    ]);
    expect(idle[0]!.get('#extras')).toMatch(/^hidden:/); // `undefined`: no object
    void session.signal;
    const used = (await ownEdgesOf('SessionImpl')).filter(ours);
    expect(used[0]!.get('#extras')).toBe('object:Object');
    await session.close();
  });
});
