import { type Client, createClient } from '@jsonrpc-kit/client';
import {
  createMemoryTransportPair,
  type JsonRpcNotification,
  lspProfile,
  type McpProgress,
  mcpProfile,
  type Profile,
  type ProgressReporter,
  type Transport,
} from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

/** A memory pair whose client side records what it sends and receives as raw text. */
function tappedPair(): {
  client: Transport;
  server: Transport;
  sent: string[];
  received: string[];
} {
  const [a, b] = createMemoryTransportPair();
  const sent: string[] = [];
  const received: string[] = [];
  const send = a.send.bind(a);
  a.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const start = a.start.bind(a);
  a.start = (handler) =>
    start({
      ...handler,
      onMessage: (message) => {
        received.push(message);
        handler.onMessage(message);
      },
    });
  return { client: a, server: b, sent, received };
}

function profiledServer<V>(profile: Profile<V>, signals: AbortSignal[] = []): Server {
  const server = createServer({ profile });
  server.method('work', async (params: { steps: number }, ctx) => {
    const report = ctx.progress;
    for (let i = 1; i <= params.steps; i++) {
      await report?.({ progress: i, total: params.steps, message: `step ${i}` });
    }
    return { reported: report !== undefined };
  });
  server.method('lspWork', async (_params: unknown, ctx) => {
    const report = ctx.progress;
    await report?.({ kind: 'begin', title: 'Indexing' });
    await report?.({ kind: 'end' });
    return 'indexed';
  });
  server.method('hang', (_params: unknown, ctx) => {
    signals.push(ctx.signal);
    return new Promise(() => {});
  });
  let stash: ProgressReporter | undefined;
  server.method('leak', (_params: unknown, ctx) => {
    stash = ctx.progress;
    return 'ok';
  });
  server.method('late', async () => {
    await stash?.({ progress: 99 });
    return 'late';
  });
  return server;
}

function connect<V>(
  profile: Profile<V>,
  server: Server,
  onNotification?: (n: JsonRpcNotification) => void,
): { client: Client<V>; sent: string[]; received: string[] } {
  const pair = tappedPair();
  server.connect(pair.server);
  const client = createClient(pair.client, {
    profile,
    sendCancel: true,
    ...(onNotification ? { onNotification } : {}),
  });
  cleanup.push(() => client.close());
  return { client, sent: pair.sent, received: pair.received };
}

describe('MCP profile', () => {
  it('routes notifications/progress to onProgress, before the result', async () => {
    const server = profiledServer(mcpProfile);
    const { client, sent, received } = connect(mcpProfile, server);
    const seen: McpProgress[] = [];
    const result = await client.request('work', { steps: 3 }, { onProgress: (p) => seen.push(p) });
    expect(result).toEqual({ reported: true });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
    expect(JSON.parse(sent[0]!)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'work',
      params: { steps: 3, _meta: { progressToken: 1 } },
    });
    expect(received).toEqual([
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"total":3,"message":"step 1"}}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2,"total":3,"message":"step 2"}}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":3,"total":3,"message":"step 3"}}',
      '{"jsonrpc":"2.0","id":1,"result":{"reported":true}}',
    ]);
  });

  it('gives no reporter without a token, and keeps existing _meta members', async () => {
    const server = profiledServer(mcpProfile);
    const { client, sent } = connect(mcpProfile, server);
    expect(await client.request('work', { steps: 2 })).toEqual({ reported: false });
    await client.request('work', { steps: 1, _meta: { other: 'x' } }, { onProgress: () => {} });
    expect(JSON.parse(sent[1]!).params._meta).toEqual({ other: 'x', progressToken: 1 });
  });

  it('drops progress reported after the call ended', async () => {
    const server = profiledServer(mcpProfile);
    const { client, received } = connect(mcpProfile, server);
    const seen: unknown[] = [];
    await client.request('leak', {}, { onProgress: (p) => seen.push(p) });
    await client.request('late', {});
    expect(seen).toEqual([]);
    expect(received.some((m) => m.includes('notifications/progress'))).toBe(false);
  });

  it('cancels with notifications/cancelled { requestId } and aborts the handler', async () => {
    const signals: AbortSignal[] = [];
    const server = profiledServer(mcpProfile, signals);
    const { client, sent } = connect(mcpProfile, server);
    const controller = new AbortController();
    const call = client.request('hang', {}, { signal: controller.signal });
    await expect.poll(() => signals.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await expect.poll(() => signals[0]!.aborted).toBe(true);
    const cancel = sent
      .map((m) => JSON.parse(m))
      .find((m) => m.method === 'notifications/cancelled');
    expect(cancel).toMatchObject({ params: { requestId: 1 } });
    expect('id' in cancel).toBe(false);
    expect(client.pending).toBe(0);
  });

  it('forwards other notifications, and rejects positional params with onProgress', async () => {
    const notes: JsonRpcNotification[] = [];
    const server = createServer();
    server.method('push', async (_p: unknown, ctx) => {
      await ctx.peer!.notify('notifications/progress', { progressToken: 'unknown', progress: 1 });
      await ctx.peer!.notify('hello', ['world']);
      return null;
    });
    const { client } = connect(mcpProfile, server, (n) => notes.push(n));
    await client.request('push');
    expect(notes.map((n) => n.method)).toEqual(['notifications/progress', 'hello']);
    await expect(client.request('push', [1], { onProgress: () => {} })).rejects.toBeInstanceOf(
      TypeError,
    );
  });

  it('reads and writes its wire shapes', () => {
    const c = mcpProfile.cancellation;
    expect(c.toParams(7, 'user')).toEqual({ requestId: 7, reason: 'user' });
    expect(c.toParams('a')).toEqual({ requestId: 'a' });
    expect(c.fromParams({ requestId: 'x' })).toBe('x');
    expect(c.fromParams({ id: 1 })).toBeUndefined();
    expect(c.fromParams([1])).toBeUndefined();
    const p = mcpProfile.progress;
    expect(p.tokenOf({ _meta: { progressToken: 'abc' } })).toBe('abc');
    expect(p.tokenOf({ _meta: { progressToken: {} } })).toBeUndefined();
    expect(p.tokenOf([1])).toBeUndefined();
    expect(p.fromParams({ progressToken: 1, progress: 'x' })).toBeUndefined();
    expect(p.fromParams({ progressToken: 1, progress: 0.5, total: 'no' })).toEqual({
      token: 1,
      value: { progress: 0.5 },
    });
    expect(() => p.withToken([1], 1)).toThrow(TypeError);
  });
});

describe('LSP profile', () => {
  it('answers a $/cancelRequest-ed call with -32800 on the wire', async () => {
    const signals: AbortSignal[] = [];
    const server = profiledServer(lspProfile, signals);
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const answers: string[] = [];
    await a.start({ onMessage: (m) => answers.push(m), onClose: () => {} });
    cleanup.push(() => a.close());
    await a.send('{"jsonrpc":"2.0","id":"x1","method":"hang"}');
    await expect.poll(() => signals.length).toBe(1);
    await a.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"x1"}}');
    await expect.poll(() => answers.length).toBe(1);
    expect(JSON.parse(answers[0]!)).toMatchObject({ id: 'x1', error: { code: -32800 } });
    expect(signals[0]!.aborted).toBe(true);
  });

  it('routes $/progress { token, value } with the token in workDoneToken', async () => {
    const server = profiledServer(lspProfile);
    const { client, sent, received } = connect(lspProfile, server);
    const seen: unknown[] = [];
    expect(
      await client.request('lspWork', { uri: 'file:///a' }, { onProgress: (v) => seen.push(v) }),
    ).toBe('indexed');
    expect(JSON.parse(sent[0]!).params).toEqual({ uri: 'file:///a', workDoneToken: 1 });
    expect(received[0]).toBe(
      '{"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":{"kind":"begin","title":"Indexing"}}}',
    );
    expect(seen).toEqual([{ kind: 'begin', title: 'Indexing' }, { kind: 'end' }]);
  });

  it('sends $/cancelRequest { id } on timeout', async () => {
    const signals: AbortSignal[] = [];
    const server = profiledServer(lspProfile, signals);
    const { client, sent } = connect(lspProfile, server);
    await expect(client.request('hang', {}, { timeout: 20 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await expect.poll(() => sent.length).toBe(2);
    expect(JSON.parse(sent[1]!)).toEqual({
      jsonrpc: '2.0',
      method: '$/cancelRequest',
      params: { id: 1 },
    });
    await expect.poll(() => signals[0]?.aborted).toBe(true);
  });

  it('reads and writes its wire shapes', () => {
    expect(lspProfile.cancellation.code).toBe(-32800);
    expect(lspProfile.cancellation.fromParams({ id: null })).toBeNull();
    expect(lspProfile.progress.tokenOf({ workDoneToken: 'w' })).toBe('w');
    expect(lspProfile.progress.tokenOf({ workDoneToken: Number.NaN })).toBeUndefined();
    expect(lspProfile.progress.fromParams({ token: 't', value: 1 })).toEqual({
      token: 't',
      value: 1,
    });
    expect(lspProfile.progress.fromParams({ value: 1 })).toBeUndefined();
    expect(lspProfile.progress.withToken(undefined, 3)).toEqual({ workDoneToken: 3 });
  });
});

describe('over stateless exchanges', () => {
  it('offers no reporter (nobody to notify)', async () => {
    const server = profiledServer(mcpProfile);
    const text = await server.handle(
      '{"jsonrpc":"2.0","id":1,"method":"work","params":{"steps":1,"_meta":{"progressToken":"t"}}}',
    );
    expect(text).toBe('{"jsonrpc":"2.0","id":1,"result":{"reported":false}}');
  });
});
