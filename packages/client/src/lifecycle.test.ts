import {
  AbortError,
  ConnectionClosedError,
  defaultProfile,
  type SendOptions,
  TimeoutError,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushMicrotasks, rawPeer } from '../test/raw-peer.js';
import { createClient, DEFAULT_CALL_TIMEOUT } from './index.js';

/** A transport driven by hand: records sends with their options, sends can be made to fail. */
function manualTransport(sendImpl?: (text: string) => Promise<void>) {
  const sent: Array<{ text: string; options: SendOptions | undefined }> = [];
  let handler: TransportHandler | undefined;
  let closes = 0;
  const transport: Transport = {
    start(h) {
      handler = h;
      return Promise.resolve();
    },
    send(text, options) {
      sent.push({ text, options });
      return sendImpl === undefined ? Promise.resolve() : sendImpl(text);
    },
    close() {
      closes++;
      handler?.onClose();
      return Promise.resolve();
    },
  };
  return {
    transport,
    sent,
    get handler() {
      return handler!;
    },
    get closes() {
      return closes;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('timeouts', () => {
  it('times out with the client default, sends the cancel notification, drops the late answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ callTimeout: 100, sendCancel: true });
    const call = peer.client.request('slow');
    const settled = call.catch((e: unknown) => e);
    await flushMicrotasks();
    vi.advanceTimersByTime(99);
    expect(peer.client.pending).toBe(1);
    vi.advanceTimersByTime(1);
    const error = await settled;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', method: 'slow', id: 1, timeout: 100 });
    expect(peer.client.pending).toBe(0);
    await flushMicrotasks();
    expect(peer.received).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"slow"}',
      '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}',
    ]);
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"late"}');
    await peer.reply(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Request cancelled"}}',
    );
    await flushMicrotasks();
    expect(peer.errors).toEqual([]);
  });

  it('lets a call override the default, and 0 wait forever', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ callTimeout: 50 });
    const short = peer.client.request('a', undefined, { timeout: 10 }).catch((e: unknown) => e);
    const forever = peer.client.request('b', undefined, { timeout: 0 });
    vi.advanceTimersByTime(10);
    expect(await short).toBeInstanceOf(TimeoutError);
    vi.advanceTimersByTime(10_000);
    expect(peer.client.pending).toBe(1);
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"b"}');
    expect(await forever).toBe('b');
  });

  it('sends no cancel notification unless cancellation is set', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ callTimeout: 10 });
    const call = peer.client.request('m').catch((e: unknown) => e);
    vi.advanceTimersByTime(10);
    expect(await call).toBeInstanceOf(TimeoutError);
    await flushMicrotasks();
    expect(peer.received).toEqual(['{"jsonrpc":"2.0","id":1,"method":"m"}']);
  });

  it('uses a custom cancellation protocol', async () => {
    const peer = rawPeer({
      sendCancel: true,
      profile: {
        ...defaultProfile,
        cancellation: {
          method: 'notifications/cancelled',
          code: -32800,
          toParams: (id, reason) => ({ requestId: id, reason }),
          fromParams: () => undefined,
        },
      },
    });
    const controller = new AbortController();
    const call = peer.client.request('m', undefined, { signal: controller.signal });
    await peer.next();
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(AbortError);
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"aborted"}}',
    );
  });
});

describe('abort', () => {
  it('rejects with AbortError carrying the reason and cancels on the wire', async () => {
    const peer = rawPeer({ sendCancel: true });
    const controller = new AbortController();
    const call = peer.client.request('m', [1], { signal: controller.signal });
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}');
    controller.abort('user gave up');
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ code: 'ABORTED', method: 'm', id: 1, cause: 'user gave up' });
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}',
    );
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"late"}');
    await peer.settle();
    expect(peer.errors).toEqual([]);
    expect(peer.client.pending).toBe(0);
  });

  it('sends nothing for an already aborted signal', async () => {
    const peer = rawPeer({ sendCancel: true });
    const controller = new AbortController();
    controller.abort();
    await expect(
      peer.client.request('m', undefined, { signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortError);
    await peer.settle();
    expect(peer.received).toEqual([]);
    expect(peer.client.pending).toBe(0);
  });

  it('answers normally when the signal is never aborted, and the listener is removed', async () => {
    const peer = rawPeer();
    const controller = new AbortController();
    const call = peer.client.request('m', undefined, { signal: controller.signal });
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":1}');
    expect(await call).toBe(1);
    controller.abort();
    await peer.settle();
    expect(peer.received).toEqual(['{"jsonrpc":"2.0","id":1,"method":"m"}']);
  });
});

describe('the send signal', () => {
  it('is aborted once the call in the message gives up', async () => {
    const manual = manualTransport();
    const client = createClient(manual.transport);
    const controller = new AbortController();
    const call = client.request('m', undefined, { signal: controller.signal }).catch(() => {});
    await flushMicrotasks();
    const signal = manual.sent[0]!.options!.signal!;
    expect(signal.aborted).toBe(false);
    controller.abort();
    await call;
    expect(signal.aborted).toBe(true);
    await client.close();
  });

  it('is aborted once the call times out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const manual = manualTransport();
    const client = createClient(manual.transport, { callTimeout: 30 });
    const call = client.request('m').catch((e: unknown) => e);
    await flushMicrotasks();
    const signal = manual.sent[0]!.options!.signal!;
    vi.advanceTimersByTime(29);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await call).toBeInstanceOf(TimeoutError);
    expect(signal.aborted).toBe(true);
    await client.close();
  });

  it('is not passed under the default deadline, a safety net that fails the call only', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const manual = manualTransport();
    const client = createClient(manual.transport);
    const call = client.request('m').catch((e: unknown) => e);
    await flushMicrotasks();
    expect(manual.sent[0]!.options).toBeUndefined();
    vi.advanceTimersByTime(DEFAULT_CALL_TIMEOUT * 1.1);
    expect(await call).toBeInstanceOf(TimeoutError);
    await client.close();
  });

  it('is aborted for a batch only when every call in it gave up', async () => {
    const manual = manualTransport();
    const client = createClient(manual.transport);
    const controller = new AbortController();
    const results = client.batch((b) => [b.request('a'), b.request('b')], {
      signal: controller.signal,
    });
    await flushMicrotasks();
    const signal = manual.sent[0]!.options!.signal!;
    controller.abort();
    const settled = await results;
    expect(settled.map((r) => r.ok)).toEqual([false, false]);
    expect(signal.aborted).toBe(true);
    await client.close();
  });

  it('is not aborted when the answer came', async () => {
    const manual = manualTransport();
    const client = createClient(manual.transport);
    const controller = new AbortController();
    const call = client.request('m', undefined, { timeout: 1000, signal: controller.signal });
    await flushMicrotasks();
    manual.handler.onMessage('{"jsonrpc":"2.0","id":1,"result":1}');
    expect(await call).toBe(1);
    controller.abort();
    expect(manual.sent[0]!.options!.signal!.aborted).toBe(false);
    await client.close();
  });

  it('is not passed for a call that cannot give up', async () => {
    const manual = manualTransport();
    // No deadline (the default is 30 s) and no signal: nothing can make the call give up.
    const client = createClient(manual.transport, { callTimeout: 0 });
    void client.request('m').catch(() => {});
    await flushMicrotasks();
    expect(manual.sent[0]!.options).toBeUndefined();
    await client.close();
  });
});

describe('send failures', () => {
  it('rejects the call with the transport error, naming the call', async () => {
    const manual = manualTransport(() =>
      Promise.reject(new TransportError('HTTP 500', { status: 500, body: 'boom' })),
    );
    const client = createClient(manual.transport);
    const error = await client.request('m', [1]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      code: 'TRANSPORT_ERROR',
      status: 500,
      body: 'boom',
      method: 'm',
      id: 1,
    });
    expect(client.pending).toBe(0);
    const timed = await client.request('t', undefined, { timeout: 1000 }).catch((e: unknown) => e);
    expect(timed).toMatchObject({ code: 'TRANSPORT_ERROR', method: 't', id: 2 });
    expect(client.pending).toBe(0);
    await expect(client.notify('n')).rejects.toMatchObject({
      code: 'TRANSPORT_ERROR',
      method: 'n',
    });
    await client.close();
  });

  it('wraps a plain failure in a TransportError and keeps ConnectionClosedError', async () => {
    let failWith: unknown = new Error('socket hang up');
    const manual = manualTransport(() => Promise.reject(failWith));
    const client = createClient(manual.transport);
    const plain = await client.request('m').catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(TransportError);
    expect((plain as Error).message).toContain('socket hang up');
    failWith = new ConnectionClosedError();
    const closedError = await client.request('m').catch((e: unknown) => e);
    expect(closedError).toBeInstanceOf(ConnectionClosedError);
    expect(closedError).toMatchObject({ method: 'm', id: 2 });
    const results = await client.batch((b) => [b.request('a'), b.request('b')]);
    expect(results.map((r) => !r.ok && r.error.constructor.name)).toEqual([
      'ConnectionClosedError',
      'ConnectionClosedError',
    ]);
    expect(client.pending).toBe(0);
    await client.close();
  });

  it('survives a transport whose send throws synchronously', async () => {
    const manual = manualTransport(() => {
      throw new Error('sync');
    });
    const client = createClient(manual.transport);
    await flushMicrotasks();
    await expect(client.request('m')).rejects.toBeInstanceOf(TransportError);
    expect(client.pending).toBe(0);
    await client.close();
  });
});

describe('transport events', () => {
  it('fails calls in flight on disconnect and keeps working', async () => {
    const manual = manualTransport();
    const errors: Error[] = [];
    const client = createClient(manual.transport, { onError: (e) => errors.push(e) });
    const call = client.request('m').catch((e: unknown) => e);
    await flushMicrotasks();
    manual.handler.onDisconnect!(new Error('dropped'));
    const error = await call;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toMatch(/Connection lost \(m, id 1\)/);
    expect(client.pending).toBe(0);
    const next = client.request('again');
    await flushMicrotasks();
    manual.handler.onMessage('{"jsonrpc":"2.0","id":2,"result":"ok"}');
    expect(await next).toBe('ok');
    manual.handler.onError!(new Error('bad frame'));
    expect(errors.map((e) => e.message)).toEqual(['bad frame']);
    await client.close();
  });

  it('closes the transport once and resolves closed', async () => {
    const manual = manualTransport();
    const client = createClient(manual.transport);
    await Promise.all([client.close(), client.close()]);
    await client.closed;
    expect(manual.closes).toBe(1);
  });

  it('fails a batch on disconnect with the ConnectionClosedError itself, code to match on', async () => {
    const manual = manualTransport();
    const client = createClient(manual.transport);
    const results = client.batch((b) => [b.request('a'), b.request('b')]);
    await flushMicrotasks();
    manual.handler.onDisconnect!(new Error('reset'));
    const [a, b] = await results;
    for (const result of [a, b]) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error).toBeInstanceOf(ConnectionClosedError);
      expect(result.error.code).toBe('CONNECTION_CLOSED');
      expect(result.error.message).toMatch(/^Connection lost/);
    }
    await client.close();
  });

  it('closes through Symbol.asyncDispose (await using)', async () => {
    const manual = manualTransport();
    const client = createClient(manual.transport);
    const waiting = client.request('m');
    await client[Symbol.asyncDispose]();
    await client.closed;
    expect(manual.closes).toBe(1);
    await expect(waiting).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('waits for start before the first send, and closes when start fails', async () => {
    let release!: () => void;
    const sent: string[] = [];
    const slow: Transport = {
      start: () => new Promise<void>((resolve) => (release = resolve)),
      send: (text) => {
        sent.push(text);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    const client = createClient(slow);
    void client.request('m').catch(() => {});
    await flushMicrotasks();
    expect(sent).toEqual([]);
    release();
    await flushMicrotasks();
    expect(sent).toEqual(['{"jsonrpc":"2.0","id":1,"method":"m"}']);
    await client.close();

    const errors: Error[] = [];
    const broken: Transport = {
      start: () => Promise.reject(new Error('cannot connect')),
      send: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const failed = createClient(broken, { onError: (e) => errors.push(e) });
    const call = failed.request('m');
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    await failed.closed;
    expect(errors[0]!.message).toBe('cannot connect');
  });
});
