import { AbortError, MethodNotFoundError, TimeoutError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushMicrotasks, rawPeer } from '../test/raw-peer.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('client.batch', () => {
  it('sends one batch message and matches out-of-order answers by id', async () => {
    const peer = rawPeer();
    const results = peer.client.batch((b) => [
      b.request<number>('add', [1, 2]),
      b.notify('log', { m: 'x' }),
      b.request<string>('echo', ['hi']),
      b.request('missing'),
    ]);
    expect(await peer.next()).toBe(
      '[{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]},' +
        '{"jsonrpc":"2.0","method":"log","params":{"m":"x"}},' +
        '{"jsonrpc":"2.0","id":2,"method":"echo","params":["hi"]},' +
        '{"jsonrpc":"2.0","id":3,"method":"missing"}]',
    );
    await peer.reply(
      '[{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}},' +
        '{"jsonrpc":"2.0","id":2,"result":"hi"},{"jsonrpc":"2.0","id":1,"result":3}]',
    );
    const [sum, echo, missing] = await results;
    expect(sum).toEqual({ ok: true, value: 3 });
    expect(echo).toEqual({ ok: true, value: 'hi' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.error).toBeInstanceOf(MethodNotFoundError);
      expect(missing.error).toMatchObject({ method: 'missing', id: 3 });
    }
    expect(peer.client.pending).toBe(0);
    expect(peer.errors).toEqual([]);
  });

  it('settles each entry when the answers come as separate messages', async () => {
    const peer = rawPeer();
    const results = peer.client.batch((b) => [b.request('a'), b.request('b')]);
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"b"}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"a"}');
    expect(await results).toEqual([
      { ok: true, value: 'a' },
      { ok: true, value: 'b' },
    ]);
  });

  it('resolves a notification-only batch with no slots once sent', async () => {
    const peer = rawPeer();
    expect(await peer.client.batch((b) => [b.notify('a'), b.notify('b', [1])])).toEqual([]);
    expect(await peer.next()).toBe(
      '[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b","params":[1]}]',
    );
    expect(peer.client.pending).toBe(0);
  });

  it('sends nothing for an empty batch', async () => {
    const peer = rawPeer();
    expect(await peer.client.batch(() => [])).toEqual([]);
    await peer.settle();
    expect(peer.received).toEqual([]);
  });

  it('rejects without sending when params cannot be serialized or the signal is aborted', async () => {
    const peer = rawPeer();
    await expect(
      peer.client.batch((b) => [b.request('a'), b.request('b', [1n])]),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      peer.client.batch((b) => [b.request('a')], { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortError);
    await expect(
      peer.client.batch(() => {
        throw new Error('builder failed');
      }),
    ).rejects.toThrow('builder failed');
    await peer.settle();
    expect(peer.received).toEqual([]);
    expect(peer.client.pending).toBe(0);
  });

  it('times every request of the batch out and cancels each', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ sendCancel: true });
    const results = peer.client.batch((b) => [b.request('a'), b.request('b')], { timeout: 20 });
    await flushMicrotasks();
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":"a"}');
    await flushMicrotasks();
    vi.advanceTimersByTime(20);
    const [a, b] = await results;
    expect(a).toEqual({ ok: true, value: 'a' });
    expect(b.ok).toBe(false);
    if (!b.ok) expect(b.error).toBeInstanceOf(TimeoutError);
    await flushMicrotasks();
    expect(peer.received.slice(1)).toEqual([
      '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}',
    ]);
  });

  it('fails every entry when the batch is answered by one error object', async () => {
    const peer = rawPeer();
    const results = peer.client.batch((b) => [b.request('a'), b.request('b')]);
    await peer.reply(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
    const settled = await results;
    expect(settled.map((r) => (r.ok ? 'ok' : (r.error as { code?: unknown }).code))).toEqual([
      -32600, -32600,
    ]);
  });
});

describe('auto-batching', () => {
  it('sends the calls of one tick as one batch message', async () => {
    const peer = rawPeer({ batch: true });
    const a = peer.client.request('a');
    const b = peer.client.request('b', [1]);
    const n = peer.client.notify('n');
    const c = peer.client.request('c');
    await n;
    expect(peer.received).toEqual([
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b","params":[1]},' +
        '{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":3,"method":"c"}]',
    ]);
    await peer.reply(
      '[{"jsonrpc":"2.0","id":3,"result":"c"},{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"result":"b"}]',
    );
    expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c']);
  });

  it('sends a lone call as a single message, not a one-element batch', async () => {
    const peer = rawPeer({ batch: true });
    const a = peer.client.request('a');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"a"}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"result":1}');
    expect(await a).toBe(1);
    await peer.client.notify('n');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","method":"n"}');
  });

  it('splits at maxSize, sending a full batch at once', async () => {
    const peer = rawPeer({ batch: { maxSize: 2 } });
    for (let i = 0; i < 5; i++) void peer.client.request('m', [i]).catch(() => {});
    // The first two batches left synchronously; the last call waits for the tick.
    expect(peer.client.pending).toBe(5);
    await peer.settle();
    expect(peer.received.map((text) => JSON.parse(text))).toEqual([
      [
        { jsonrpc: '2.0', id: 1, method: 'm', params: [0] },
        { jsonrpc: '2.0', id: 2, method: 'm', params: [1] },
      ],
      [
        { jsonrpc: '2.0', id: 3, method: 'm', params: [2] },
        { jsonrpc: '2.0', id: 4, method: 'm', params: [3] },
      ],
      { jsonrpc: '2.0', id: 5, method: 'm', params: [4] },
    ]);
    await peer.client.close();
  });

  it('collects calls within wait ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ batch: { wait: 10 } });
    void peer.client.request('a').catch(() => {});
    await flushMicrotasks();
    vi.advanceTimersByTime(5);
    void peer.client.request('b').catch(() => {});
    await flushMicrotasks();
    expect(peer.received).toEqual([]);
    vi.advanceTimersByTime(5);
    await flushMicrotasks();
    expect(peer.received).toEqual([
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]',
    ]);
    await peer.client.close();
  });

  it('does not send a call that gave up while queued, nor cancel it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ batch: { wait: 50 }, sendCancel: true });
    const controller = new AbortController();
    const gone = peer.client.request('gone', undefined, { signal: controller.signal });
    const kept = peer.client.request('kept');
    controller.abort();
    await expect(gone).rejects.toBeInstanceOf(AbortError);
    vi.advanceTimersByTime(50);
    await flushMicrotasks();
    expect(peer.received).toEqual(['{"jsonrpc":"2.0","id":2,"method":"kept"}']);
    await peer.reply('{"jsonrpc":"2.0","id":2,"result":"k"}');
    expect(await kept).toBe('k');
  });

  it('sends what is queued before an explicit batch', async () => {
    const peer = rawPeer({ batch: true });
    void peer.client.request('queued').catch(() => {});
    void peer.client.batch((b) => [b.request('x')]).catch(() => {});
    await peer.settle();
    expect(peer.received).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"queued"}',
      '[{"jsonrpc":"2.0","id":2,"method":"x"}]',
    ]);
    await peer.client.close();
  });

  it('rejects queued notifications and calls on close', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const peer = rawPeer({ batch: { wait: 100 } });
    const call = peer.client.request('a');
    const note = peer.client.notify('n');
    await peer.client.close();
    await expect(call).rejects.toMatchObject({ code: 'CONNECTION_CLOSED', method: 'a' });
    await expect(note).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    vi.advanceTimersByTime(200);
    await flushMicrotasks();
    expect(peer.received).toEqual([]);
  });

  it('refuses a bad maxSize or wait', () => {
    const peer = rawPeer();
    expect(() => rawPeer({ batch: { maxSize: 0 } })).toThrow(RangeError);
    expect(() => rawPeer({ batch: { wait: -1 } })).toThrow(RangeError);
    void peer.client.close();
  });
});
