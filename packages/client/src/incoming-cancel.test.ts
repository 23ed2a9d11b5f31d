import {
  type CancellationProtocol,
  createMemoryTransportPair,
  defaultProfile,
  type IncomingContext,
  JsonRpcError,
  type JsonRpcParams,
  RequestCancelledError,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type RawPeer, rawPeer } from '../test/raw-peer.js';
import { type ClientOptions, createClient } from './index.js';

const peers: RawPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.client.close()));
});

/** A handler that waits until the test releases it, recording each call's context. */
function held(): {
  contexts: Map<unknown, IncomingContext>;
  release: (id: unknown, value: unknown) => void;
  onRequest: NonNullable<ClientOptions['onRequest']>;
} {
  const contexts = new Map<unknown, IncomingContext>();
  const releases = new Map<unknown, (value: unknown) => void>();
  return {
    contexts,
    release: (id, value) => releases.get(id)?.(value),
    onRequest: (request, ctx) => {
      contexts.set(request.id, ctx);
      return new Promise((resolve) => releases.set(request.id, resolve));
    },
  };
}

function open(options: ClientOptions): RawPeer {
  const peer = rawPeer(options);
  peers.push(peer);
  return peer;
}

/** Waits a little for deliveries that must not happen. */
const quiet = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

const LSP: CancellationProtocol = {
  method: '$/cancelRequest',
  code: -32800,
  toParams: (id) => ({ id }),
  fromParams: (params: JsonRpcParams | undefined) =>
    (params as { id?: number | string } | undefined)?.id,
};

const MCP: CancellationProtocol = {
  method: 'notifications/cancelled',
  code: -32800,
  answer: false,
  toParams: (id, reason) => (reason === undefined ? { requestId: id } : { requestId: id, reason }),
  fromParams: (params: JsonRpcParams | undefined) =>
    (params as { requestId?: number | string } | undefined)?.requestId,
};

describe('cancellation of incoming requests', () => {
  it.each([
    ['unset', undefined],
    ['true', true],
    ['false', false],
  ])('honours $/cancelRequest with -32001 when cancellation is %s', async (_name, option) => {
    const h = held();
    const peer = open(
      option === undefined
        ? { onRequest: h.onRequest }
        : { onRequest: h.onRequest, sendCancel: option },
    );
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    await peer.settle();
    const signal = h.contexts.get(1)!.signal;
    expect(signal.aborted).toBe(false);
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Request cancelled"}}',
    );
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(RequestCancelledError);
    // The late result is dropped.
    h.release(1, 'late');
    await quiet();
    expect(peer.received).toHaveLength(1);
    expect(peer.errors).toEqual([]);
  });

  it('answers with the configured protocol and its code', async () => {
    const h = held();
    const peer = open({
      onRequest: h.onRequest,
      profile: { ...defaultProfile, cancellation: LSP },
      sendCancel: true,
    });
    await peer.reply('{"jsonrpc":"2.0","id":"a","method":"slow"}');
    await peer.settle();
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":"a","error":{"code":-32800,"message":"Request cancelled"}}',
    );
    const reason = h.contexts.get('a')!.signal.reason as JsonRpcError;
    expect(reason).toBeInstanceOf(JsonRpcError);
    expect(reason.code).toBe(-32800);
  });

  it('sends nothing for a cancelled request when the protocol has answer: false', async () => {
    const h = held();
    const peer = open({
      onRequest: h.onRequest,
      profile: { ...defaultProfile, cancellation: MCP },
      sendCancel: true,
    });
    await peer.reply('{"jsonrpc":"2.0","id":7,"method":"slow"}');
    await peer.reply('{"jsonrpc":"2.0","id":8,"method":"slow"}');
    await peer.settle();
    await peer.reply(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}',
    );
    await peer.settle();
    expect(h.contexts.get(7)!.signal.aborted).toBe(true);
    expect(h.contexts.get(8)!.signal.aborted).toBe(false);
    h.release(7, 'late');
    h.release(8, 'on time');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":8,"result":"on time"}');
    await quiet();
    expect(peer.received).toEqual(['{"jsonrpc":"2.0","id":8,"result":"on time"}']);
    expect(peer.errors).toEqual([]);
  });

  it('answers early even when the handler never looks at its signal', async () => {
    const peer = open({ onRequest: () => new Promise(() => {}) });
    await peer.reply('{"jsonrpc":"2.0","id":3,"method":"forever"}');
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Request cancelled"}}',
    );
  });

  it('gives a signal read after the cancellation as already aborted', async () => {
    let ctx: IncomingContext | undefined;
    const peer = open({
      onRequest: (_r, c) => {
        ctx = c;
        return new Promise(() => {});
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":4,"method":"m"}');
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}');
    await peer.next();
    expect(ctx!.signal.aborted).toBe(true);
    expect(ctx!.signal.reason).toBeInstanceOf(RequestCancelledError);
  });

  it('echoes a big integer id exactly in the cancel answer', async () => {
    const h = held();
    const peer = open({ onRequest: h.onRequest });
    await peer.reply('{"jsonrpc":"2.0","id":9007199254740993,"method":"slow"}');
    await peer.settle();
    await peer.reply(
      '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9007199254740993}}',
    );
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32001,"message":"Request cancelled"}}',
    );
  });

  it('ignores cancellations of unknown or answered ids and never delivers them as notifications', async () => {
    const notes: string[] = [];
    const peer = open({
      onRequest: () => Promise.resolve('done'),
      onNotification: (n) => {
        notes.push(n.method);
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"m"}');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"done"}');
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}');
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}');
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":[1]}');
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest"}');
    await peer.reply('{"jsonrpc":"2.0","method":"other"}');
    await quiet();
    expect(peer.received).toHaveLength(1);
    expect(notes).toEqual(['other']);
    expect(peer.errors).toEqual([]);
  });

  it('keeps finding running requests by id across many cancellations and answers', async () => {
    const h = held();
    const peer = open({ onRequest: h.onRequest });
    for (const id of [1, 2, 3]) await peer.reply(`{"jsonrpc":"2.0","id":${id},"method":"m"}`);
    await peer.settle();
    const cancel = (id: number) =>
      peer.reply(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":${id}}}`);
    const cancelled = (id: number) =>
      `{"jsonrpc":"2.0","id":${id},"error":{"code":-32001,"message":"Request cancelled"}}`;
    await cancel(2);
    expect(await peer.next()).toBe(cancelled(2));
    await peer.reply('{"jsonrpc":"2.0","id":4,"method":"m"}');
    await peer.settle();
    h.release(1, 'one');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":1,"result":"one"}');
    await cancel(1); // answered already: ignored
    await cancel(4);
    expect(await peer.next()).toBe(cancelled(4));
    h.release(3, 'three');
    expect(await peer.next()).toBe('{"jsonrpc":"2.0","id":3,"result":"three"}');
    h.release(2, 'late');
    h.release(4, 'late');
    await quiet();
    expect(peer.received).toHaveLength(4);
    expect(h.contexts.get(3)!.signal.aborted).toBe(false);
  });

  it('cancels one member of an incoming batch and answers the rest in the same batch', async () => {
    const h = held();
    const peer = open({ onRequest: h.onRequest });
    await peer.reply(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]',
    );
    await peer.settle();
    await peer.reply('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}');
    await peer.settle();
    h.release(1, 'one');
    h.release(2, 'late');
    expect(await peer.next()).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"one"},{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Request cancelled"}}]',
    );
  });

  it('leaves a cancelled member out of the batch answer under answer: false', async () => {
    const h = held();
    const peer = open({
      onRequest: h.onRequest,
      profile: { ...defaultProfile, cancellation: MCP },
      sendCancel: true,
    });
    await peer.reply(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]',
    );
    await peer.settle();
    await peer.reply(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    );
    await peer.settle();
    h.release(2, 'two');
    expect(await peer.next()).toBe('[{"jsonrpc":"2.0","id":2,"result":"two"}]');
    // Every member cancelled: no batch answer at all.
    await peer.reply('[{"jsonrpc":"2.0","id":3,"method":"a"}]');
    await peer.settle();
    await peer.reply(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}',
    );
    await quiet();
    expect(peer.received).toHaveLength(1);
  });

  it('aborts running handlers when the client closes, and sends nothing for them', async () => {
    const h = held();
    const peer = open({ onRequest: h.onRequest });
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    await peer.settle();
    const signal = h.contexts.get(1)!.signal;
    await peer.client.close(new Error('bye'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('bye');
    h.release(1, 'late');
    await quiet();
    expect(peer.received).toEqual([]);
  });

  it('cancels a request served by one client for another over a memory pair', async () => {
    const [a, b] = createMemoryTransportPair();
    let seen: AbortSignal | undefined;
    const server = createClient(a, {
      onRequest: (_r, ctx) =>
        new Promise((_resolve, reject) => {
          seen = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        }),
    });
    const caller = createClient(b, { sendCancel: true });
    const controller = new AbortController();
    const call = caller.request('slow', undefined, { signal: controller.signal });
    for (let i = 0; i < 50 && seen === undefined; i++) await new Promise((r) => setTimeout(r, 1));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    for (let i = 0; i < 50 && !seen!.aborted; i++) await new Promise((r) => setTimeout(r, 1));
    expect(seen!.aborted).toBe(true);
    await caller.close();
    await server.closed;
  });
});
