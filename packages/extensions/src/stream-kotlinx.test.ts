/**
 * The kotlinx-rpc JSON-RPC draft's Flow protocol, both ways, against raw peers written from the
 * draft's text ("Flow support"): the stream call answers a flow id; the receiver sends
 * `kotlinx.rpc.jsonrpc.internal.nextFlowValue` with the flow id as the sole parameter for each
 * item; completion is an error with code -32001; `kotlinx.rpc.jsonrpc.internal.cancelFlow` with
 * the flow id stops early; parameters by name by default; numeric ids.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Client, createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, type Transport } from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { createWebSocketServer, createWebSocketTransport } from '@jsonrpc-kit/transport-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { streamCall } from './stream-client.js';
import { kotlinxStreamProfile } from './stream-profile.js';
import { streams } from './stream-server.js';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A raw text peer: send one text, read the texts that came back, in order. */
interface RawPeer {
  send(text: string): void;
  /** The next text received (waits up to 2 s). */
  next(): Promise<string>;
}

function rawQueue(): { push(text: string): void; next(): Promise<string> } {
  const inbox: string[] = [];
  let wake: (() => void) | undefined;
  return {
    push(text) {
      inbox.push(text);
      wake?.();
    },
    async next() {
      for (let i = 0; i < 200 && inbox.length === 0; i++) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 10);
        });
      }
      const text = inbox.shift();
      if (text === undefined) throw new Error('no answer within 2 s');
      return text;
    },
  };
}

function kotlinxServer(): { server: Server; returned: () => boolean } {
  let returned = false;
  const server = createServer();
  cleanup.push(streams(server, { profile: kotlinxStreamProfile }));
  server.method('count', async function* ([n]: [number]) {
    for (let i = 1; i <= n; i++) yield i;
  });
  server.method('forever', async function* () {
    try {
      for (let i = 0; ; i++) yield i;
    } finally {
      returned = true;
    }
  });
  return { server, returned: () => returned };
}

async function memoryPeer(server: Server): Promise<RawPeer> {
  const [a, b] = createMemoryTransportPair();
  server.connect(b);
  const queue = rawQueue();
  await a.start({ onMessage: (m) => queue.push(m), onClose: () => {} });
  cleanup.push(() => a.close());
  return { send: (text) => void a.send(text), next: queue.next };
}

async function listen(http: HttpServer): Promise<number> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return (http.address() as AddressInfo).port;
}

async function webSocketPeer(server: Server): Promise<RawPeer> {
  const http = createHttpServer();
  const wss = createWebSocketServer({ server, httpServer: http, path: '/ws' });
  const port = await listen(http);
  cleanup.push(async () => {
    await wss.close({ timeout: 1_000 });
    await new Promise((resolve) => http.close(resolve));
  });
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const queue = rawQueue();
  socket.on('message', (data) => queue.push(String(data)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  cleanup.push(() => socket.close());
  return { send: (text) => socket.send(text), next: queue.next };
}

const NEXT = 'kotlinx.rpc.jsonrpc.internal.nextFlowValue';
const CANCEL = 'kotlinx.rpc.jsonrpc.internal.cancelFlow';

/** What a kotlinx-rpc peer consuming our streams sends, and the exact bytes it must get back. */
const CONSUMER_EXCHANGES: ReadonlyArray<readonly [string, string]> = [
  ['{"jsonrpc":"2.0","id":1,"method":"count","params":[2]}', '{"jsonrpc":"2.0","id":1,"result":1}'],
  [
    `{"jsonrpc":"2.0","id":2,"method":"${NEXT}","params":{"flowId":1}}`,
    '{"jsonrpc":"2.0","id":2,"result":1}',
  ],
  // By position, which the server accepts as well.
  [
    `{"jsonrpc":"2.0","id":3,"method":"${NEXT}","params":[1]}`,
    '{"jsonrpc":"2.0","id":3,"result":2}',
  ],
  [
    `{"jsonrpc":"2.0","id":4,"method":"${NEXT}","params":{"flowId":1}}`,
    '{"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"Flow completed","data":{"flowId":1}}}',
  ],
  ['{"jsonrpc":"2.0","id":5,"method":"forever"}', '{"jsonrpc":"2.0","id":5,"result":2}'],
  [
    `{"jsonrpc":"2.0","id":6,"method":"${NEXT}","params":{"flowId":2}}`,
    '{"jsonrpc":"2.0","id":6,"result":0}',
  ],
  [
    `{"jsonrpc":"2.0","id":7,"method":"${CANCEL}","params":{"flowId":2}}`,
    '{"jsonrpc":"2.0","id":7,"result":null}',
  ],
  [
    `{"jsonrpc":"2.0","id":8,"method":"${NEXT}","params":{"flowId":2}}`,
    '{"jsonrpc":"2.0","id":8,"error":{"code":-32001,"message":"Flow completed","data":{"flowId":2}}}',
  ],
  [
    `{"jsonrpc":"2.0","id":9,"method":"${NEXT}","params":{"stream":"s1"}}`,
    '{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params","data":[{"path":"flowId","message":"Expected an id"}]}}',
  ],
];

describe('a kotlinx-rpc peer consumes our streams (server with the kotlinx profile)', () => {
  for (const [name, open] of [
    ['memory', memoryPeer],
    ['WebSocket', webSocketPeer],
  ] as const) {
    it(`over ${name}: flow id, one value per nextFlowValue, -32001 at the end, cancelFlow`, async () => {
      const { server, returned } = kotlinxServer();
      const peer = await open(server);
      for (const [request, answer] of CONSUMER_EXCHANGES) {
        peer.send(request);
        expect(await peer.next()).toBe(answer);
      }
      expect(returned()).toBe(true);
    });
  }
});

/**
 * A kotlinx-rpc peer that serves a Flow, written from the draft's text: `numbers` answers flow id
 * 42; each `nextFlowValue` answers the next number; after the last, -32001; `cancelFlow` stops
 * the flow. It answers raw text and records the raw text it received.
 */
function kotlinxFlowServer(values: readonly number[]) {
  const received: string[] = [];
  let index = 0;
  let cancelled = false;
  const answer = (text: string): string => {
    received.push(text);
    const message = JSON.parse(text) as { id: number; method: string; params?: unknown };
    const reply = (body: string): string => `{"jsonrpc":"2.0","id":${message.id},${body}}`;
    if (message.method === 'numbers') return reply('"result":42');
    const params = message.params as { flowId?: unknown } | unknown[];
    const flowId = Array.isArray(params) ? params[0] : params?.flowId;
    if (flowId !== 42) return reply('"error":{"code":-32602,"message":"Invalid params"}');
    if (message.method === CANCEL) {
      cancelled = true;
      return reply('"result":null');
    }
    if (message.method !== NEXT)
      return reply('"error":{"code":-32601,"message":"Method not found"}');
    if (cancelled || index >= values.length) {
      return reply('"error":{"code":-32001,"message":"Flow completed"}');
    }
    return reply(`"result":${values[index++]}`);
  };
  return { received, answer, cancelled: () => cancelled };
}

async function memoryClient(answer: (text: string) => string): Promise<Client> {
  const [a, b] = createMemoryTransportPair();
  await b.start({ onMessage: (m) => void b.send(answer(m)), onClose: () => {} });
  const client = createClient(a);
  cleanup.push(() => client.close());
  return client;
}

async function webSocketClient(answer: (text: string) => string): Promise<Client> {
  const http = createHttpServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (socket) =>
    socket.on('message', (data) => socket.send(answer(String(data)))),
  );
  const port = await listen(http);
  cleanup.push(async () => {
    for (const socket of wss.clients) socket.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => http.close(resolve));
  });
  const transport: Transport = createWebSocketTransport({
    url: `ws://127.0.0.1:${port}`,
    reconnect: false,
  });
  const client = createClient(transport);
  cleanup.push(() => client.close());
  return client;
}

describe('we consume a kotlinx-rpc peer’s Flow (client with the kotlinx profile)', () => {
  for (const [name, connect] of [
    ['memory', memoryClient],
    ['WebSocket', webSocketClient],
  ] as const) {
    it(`over ${name}: pulls one value per call by name, and ends on -32001`, async () => {
      const peer = kotlinxFlowServer([1, 2, 3]);
      const client = await connect(peer.answer);
      const items: number[] = [];
      for await (const n of streamCall<number>(client, 'numbers', undefined, {
        profile: kotlinxStreamProfile,
      })) {
        items.push(n);
      }
      expect(items).toEqual([1, 2, 3]);
      expect(peer.received).toEqual([
        '{"jsonrpc":"2.0","id":1,"method":"numbers"}',
        `{"jsonrpc":"2.0","id":2,"method":"${NEXT}","params":{"flowId":42}}`,
        `{"jsonrpc":"2.0","id":3,"method":"${NEXT}","params":{"flowId":42}}`,
        `{"jsonrpc":"2.0","id":4,"method":"${NEXT}","params":{"flowId":42}}`,
        `{"jsonrpc":"2.0","id":5,"method":"${NEXT}","params":{"flowId":42}}`,
      ]);
    });

    it(`over ${name}: stops early with cancelFlow, by position when the profile says so`, async () => {
      const peer = kotlinxFlowServer([1, 2, 3, 4, 5, 6, 7, 8]);
      const client = await connect(peer.answer);
      const items: number[] = [];
      for await (const n of streamCall<number>(client, 'numbers', undefined, {
        profile: { ...kotlinxStreamProfile, params: 'byPosition' },
        window: 1,
      })) {
        items.push(n);
        if (n === 2) break;
      }
      expect(items).toEqual([1, 2]);
      expect(peer.cancelled()).toBe(true);
      expect(peer.received.at(-1)).toBe(
        `{"jsonrpc":"2.0","id":5,"method":"${CANCEL}","params":[42]}`,
      );
      expect(peer.received.slice(1, -1).every((m) => m.endsWith('"params":[42]}'))).toBe(true);
    });
  }

  it('throws a producer error from the loop, after the values before it', async () => {
    const [a, b] = createMemoryTransportPair();
    let pulls = 0;
    await b.start({
      onMessage: (text) => {
        const { id, method } = JSON.parse(text) as { id: number; method: string };
        const body =
          method === 'numbers'
            ? '"result":7'
            : ++pulls === 1
              ? '"result":"a"'
              : '"error":{"code":1001,"message":"boom"}';
        void b.send(`{"jsonrpc":"2.0","id":${id},${body}}`);
      },
      onClose: () => {},
    });
    const client = createClient(a);
    cleanup.push(() => client.close());
    const items: string[] = [];
    const error = await (async () => {
      for await (const s of streamCall<string>(client, 'numbers', undefined, {
        profile: kotlinxStreamProfile,
      })) {
        items.push(s);
      }
    })().catch((e: unknown) => e);
    expect(items).toEqual(['a']);
    expect(error).toMatchObject({ code: 1001, message: 'boom' });
  });
});

describe('our client and server, both with the kotlinx profile', () => {
  it('round-trips 1000 items and cancels', async () => {
    const { server, returned } = kotlinxServer();
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const client = createClient(a);
    cleanup.push(() => client.close());
    const options = { profile: kotlinxStreamProfile, window: 8 };
    const items: number[] = [];
    for await (const n of streamCall<number>(client, 'count', [1000], options)) items.push(n);
    expect(items).toHaveLength(1000);
    expect(items.every((n, i) => n === i + 1)).toBe(true);
    for await (const n of streamCall<number>(client, 'forever', undefined, options)) {
      if (n === 20) break;
    }
    await expect.poll(returned).toBe(true);
  });
});

describe('the kotlinx profile over stateless exchanges', () => {
  it('answers a UUID flow id, which our client pulls across handle() calls', async () => {
    const { server } = kotlinxServer();
    const open = JSON.parse(
      (await server.handle('{"jsonrpc":"2.0","id":1,"method":"count","params":[2]}'))!,
    ) as { result: string };
    expect(open.result).toMatch(/^[0-9a-f-]{36}$/);
    const pull = (id: number) =>
      server.handle(
        `{"jsonrpc":"2.0","id":${id},"method":"${NEXT}","params":{"flowId":"${open.result}"}}`,
      );
    expect(await pull(2)).toBe('{"jsonrpc":"2.0","id":2,"result":1}');
    expect(await pull(3)).toBe('{"jsonrpc":"2.0","id":3,"result":2}');
    expect(await pull(4)).toBe(
      `{"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"Flow completed","data":{"flowId":"${open.result}"}}}`,
    );
  });
});
