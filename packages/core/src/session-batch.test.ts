import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortError, ProtocolError, TimeoutError, TransportError } from './errors.js';
import { createMemoryTransportPair } from './memory-transport.js';
import { defaultProfile } from './protocols.js';
import { createSession, type Session, type SessionOptions } from './session.js';
import type { Transport } from './transport.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Lets queued microtasks and memory-pair deliveries run. */
async function flush(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/**
 * A session on one end of a memory pair, taking answers as a client does (a batch answer's
 * id-null error placed by the batch's other members), and a raw peer on the other end that
 * records what it receives and replies with raw text.
 */
async function pair(options: Partial<SessionOptions> = {}) {
  const [mine, theirs] = createMemoryTransportPair();
  const received: string[] = [];
  const errors: Error[] = [];
  await theirs.start({ onMessage: (text) => received.push(text), onClose() {} });
  const session: Session = createSession(mine, {
    report: (error) => errors.push(error),
    ...options,
  });
  session.start((parsed) => {
    // What the incoming runner does with a batch of answers.
    if (parsed.kind === 'batch') session.respondBatch(parsed);
    return undefined;
  });
  await flush();
  return { session, received, errors, reply: (text: string) => theirs.send(text) };
}

const request = (method: string, params?: unknown[]) =>
  ({ kind: 'request', method, params }) as const;
const notification = (method: string, params?: unknown[]) =>
  ({ kind: 'notification', method, params }) as const;

describe('session.sendBatch', () => {
  it('sends one array, takes ids for the requests, and settles each by its answer', async () => {
    const { session, received, reply, errors } = await pair();
    const sent = session.sendBatch([request('a', [1]), notification('n'), request('b')]);
    expect(sent.ids).toEqual([1, 2]);
    expect(sent.sent).toBeUndefined();
    expect(session.pending.size).toBe(2);
    await flush();
    expect(received).toEqual([
      '[{"jsonrpc":"2.0","id":1,"method":"a","params":[1]},{"jsonrpc":"2.0","method":"n"},' +
        '{"jsonrpc":"2.0","id":2,"method":"b"}]',
    ]);
    await reply('[{"jsonrpc":"2.0","id":2,"result":"b"},{"jsonrpc":"2.0","id":1,"result":"a"}]');
    expect(await Promise.all(sent.calls)).toEqual(['a', 'b']);
    expect(session.pending.size).toBe(0);
    expect(errors).toEqual([]);
    await session.close();
  });

  it("hands back the send's promise for notifications only, and nothing for no members", async () => {
    const { session, received } = await pair();
    const none = session.sendBatch([]);
    expect(none).toEqual({ calls: [], ids: [], sent: undefined });
    const sent = session.sendBatch([notification('a'), notification('b', [1])]);
    expect(sent.calls).toEqual([]);
    await sent.sent;
    await flush();
    expect(received).toEqual([
      '[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b","params":[1]}]',
    ]);
    await session.close();
  });

  it('fails the members still unanswered of the message an id-null error answers, and no other call', async () => {
    const { session, reply, errors } = await pair({ placeNullIdErrors: true });
    const lone = session.request('lone');
    const sent = session.sendBatch([request('a'), request('b'), request('c')]);
    const outcomes = sent.calls.map((call) => call.catch((error: unknown) => error));
    await flush();
    await reply(
      '[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},' +
        '{"jsonrpc":"2.0","id":2,"result":"a"},{"jsonrpc":"2.0","id":4,"result":"c"}]',
    );
    const [a, b, c] = await Promise.all(outcomes);
    expect(a).toBe('a');
    expect(b).toMatchObject({ code: -32600, method: 'b', id: 3 });
    expect(c).toBe('c');
    expect(session.pending.size).toBe(1);
    await reply('{"jsonrpc":"2.0","id":1,"result":"lone"}');
    expect(await lone).toBe('lone');
    expect(errors).toEqual([]);
    await session.close();
  });

  it('reports an id-null error without placeNullIdErrors, failing nothing', async () => {
    const { session, reply, errors } = await pair();
    const sent = session.sendBatch([request('a'), request('b')]);
    await flush();
    await reply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    await flush();
    expect(session.pending.size).toBe(2);
    expect(errors).toEqual([expect.any(ProtocolError)]);
    await session.close();
    for (const call of sent.calls)
      await expect(call).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('throws, registering and sending nothing, on an id already pending or an aborted signal', async () => {
    const { session, received } = await pair({ generateId: () => 7 });
    const first = session.request('first');
    expect(() => session.sendBatch([request('a')])).toThrow(/already pending/);
    expect(() => session.sendBatch([request('a')], { signal: AbortSignal.abort() })).toThrow(
      AbortError,
    );
    expect(session.pending.size).toBe(1);
    await flush();
    expect(received).toEqual(['{"jsonrpc":"2.0","id":7,"method":"first"}']);
    await session.close();
    await expect(first).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('times every member out and cancels each', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { session, received } = await pair({ profile: defaultProfile, sendCancel: true });
    const sent = session.sendBatch([request('a'), request('b')], { timeout: 20 });
    const outcomes = sent.calls.map((call) => call.catch((error: unknown) => error));
    await flush();
    vi.advanceTimersByTime(20);
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toBeInstanceOf(TimeoutError);
    await flush();
    expect(received.slice(1)).toEqual([
      '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}',
      '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}',
    ]);
    await session.close();
  });

  it('rejects each member with a TransportError when the send fails', async () => {
    const failing: Transport = {
      start: () => Promise.resolve(),
      send: () => Promise.reject(new Error('pipe broke')),
      close: () => Promise.resolve(),
    };
    const session = createSession(failing, { report: () => {} });
    session.start(() => undefined);
    await flush();
    const sent = session.sendBatch([request('a'), request('b')]);
    for (const call of sent.calls) await expect(call).rejects.toBeInstanceOf(TransportError);
    const notices = session.sendBatch([notification('n')]);
    await expect(notices.sent).rejects.toMatchObject({ method: 'n' });
    expect(session.pending.size).toBe(0);
    await session.close();
  });
});

describe('session.holdBatch', () => {
  it('holds its members until sent, leaving out one that gave up, without a cancel notice', async () => {
    const { session, received, reply } = await pair({ profile: defaultProfile, sendCancel: true });
    const batch = session.holdBatch();
    const controller = new AbortController();
    const gone = batch.request('gone', undefined, { signal: controller.signal });
    const kept = batch.request('kept', [1]);
    const noted = batch.notify('n');
    expect(batch.size).toBe(3);
    expect(session.pending.size).toBe(2);
    controller.abort();
    await expect(gone).rejects.toBeInstanceOf(AbortError);
    await flush();
    expect(received).toEqual([]);
    batch.send();
    expect(batch.sent).toBe(true);
    await noted;
    await flush();
    expect(received).toEqual([
      '[{"jsonrpc":"2.0","id":2,"method":"kept","params":[1]},{"jsonrpc":"2.0","method":"n"}]',
    ]);
    await reply('{"jsonrpc":"2.0","id":2,"result":"k"}');
    expect(await kept).toBe('k');
    await session.close();
  });

  it('sends a lone member as itself, and nothing when none is left', async () => {
    const { session, received } = await pair();
    const one = session.holdBatch();
    void one.request('a').catch(() => {});
    one.send();
    const empty = session.holdBatch();
    const controller = new AbortController();
    void empty.request('b', undefined, { signal: controller.signal }).catch(() => {});
    controller.abort();
    empty.send();
    await flush();
    expect(received).toEqual(['{"jsonrpc":"2.0","id":1,"method":"a"}']);
    await session.close();
  });

  it('an id-null error leaves the calls still held alone; a drop rejects the notifications', async () => {
    const { session, reply, errors } = await pair({ placeNullIdErrors: true });
    const batch = session.holdBatch();
    const held = batch.request('later');
    const noted = batch.notify('n');
    await reply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    await flush();
    expect(session.pending.size).toBe(1);
    expect(errors).toEqual([expect.any(ProtocolError)]);
    const closed = new Error('closed');
    batch.drop(closed);
    await expect(noted).rejects.toBe(closed);
    await session.close();
    await expect(held).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });
});
