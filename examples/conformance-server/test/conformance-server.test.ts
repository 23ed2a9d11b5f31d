import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Case, EXACT_IDS, METHOD_CASES, SPEC_CASES, shapeLike } from './cases.js';
import {
  type DuplexPeer,
  type Framing,
  type NetworkChild,
  openWebSocket,
  post,
  spawnNetwork,
  spawnStdio,
} from './raw-peers.js';

const ALL_CASES: readonly Case[] = [...SPEC_CASES, ...METHOD_CASES];

let sentinelCount = 0;

/**
 * Sends one raw text on a duplex peer and returns the answer, or `undefined` when a following
 * sentinel request is answered first (nothing was answered).
 */
async function exchange(peer: DuplexPeer, text: string, expectAnswer: boolean): Promise<unknown> {
  peer.send(text);
  if (expectAnswer) return JSON.parse(await peer.next());
  const sentinel = `sentinel-${++sentinelCount}`;
  peer.send(`{"jsonrpc":"2.0","method":"echo","params":["${sentinel}"],"id":"${sentinel}"}`);
  const answer = JSON.parse(await peer.next());
  // Give a stray answer to the notification a moment to show up.
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(peer.buffered).toBe(0);
  return answer.id === sentinel ? undefined : answer;
}

function duplexSuite(name: string, open: () => Promise<DuplexPeer>) {
  describe(name, () => {
    let peer: DuplexPeer;
    beforeAll(async () => {
      peer = await open();
    });
    afterAll(async () => {
      await peer?.close();
    });

    for (const c of ALL_CASES) {
      it(c.name, async () => {
        const answer = await exchange(peer, c.request, c.answer !== undefined);
        expect(shapeLike(answer, c.answer)).toEqual(c.answer);
      });
    }

    it('echoes ids exactly, digit for digit', async () => {
      for (const id of EXACT_IDS) {
        peer.send(`{"jsonrpc":"2.0","method":"get_data","id":${id}}`);
        const raw = await peer.next();
        expect(raw).toContain(`"id":${id}`);
      }
    });

    it('cancels a sleep with $/cancelRequest (-32001) and keeps serving', async () => {
      const started = Date.now();
      peer.send('{"jsonrpc":"2.0","method":"sleep","params":{"ms":10000},"id":"long"}');
      await new Promise((resolve) => setTimeout(resolve, 50));
      peer.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"long"}}');
      const answer = JSON.parse(await peer.next(3_000));
      expect(answer).toMatchObject({ id: 'long', error: { code: -32001 } });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(
        await exchange(peer, '{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"after"}', true),
      ).toEqual({
        jsonrpc: '2.0',
        id: 'after',
        result: 3,
      });
    });

    it('answers concurrent calls out of order, each with its own id', async () => {
      peer.send('{"jsonrpc":"2.0","method":"sleep","params":{"ms":150},"id":"slow"}');
      peer.send('{"jsonrpc":"2.0","method":"sleep","params":{"ms":0},"id":"fast"}');
      const first = JSON.parse(await peer.next());
      const second = JSON.parse(await peer.next());
      expect(first).toEqual({ jsonrpc: '2.0', id: 'fast', result: 0 });
      expect(second).toEqual({ jsonrpc: '2.0', id: 'slow', result: 150 });
    });

    it('keeps serving after garbage', async () => {
      expect(await exchange(peer, '{"jsonrpc":', true)).toMatchObject({
        id: null,
        error: { code: -32700 },
      });
      expect(
        await exchange(peer, '{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}', true),
      ).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: [1],
      });
    });
  });
}

describe('conformance server over HTTP and WebSocket (node dist/server.js --port 0)', () => {
  let net: NetworkChild;
  beforeAll(async () => {
    net = await spawnNetwork();
  });
  afterAll(async () => {
    await net?.close();
  });

  it('prints exactly "listening http://127.0.0.1:PORT/rpc ws://127.0.0.1:PORT/ws" first', () => {
    expect(net.firstLine).toMatch(
      /^listening http:\/\/127\.0\.0\.1:(\d+)\/rpc ws:\/\/127\.0\.0\.1:\1\/ws$/,
    );
    expect(Number(new URL(net.httpUrl).port)).toBeGreaterThan(0);
  });

  describe('HTTP POST /rpc', () => {
    for (const c of ALL_CASES) {
      it(c.name, async () => {
        const { status, body, contentType } = await post(net.httpUrl, c.request);
        if (c.answer === undefined) {
          expect(status).toBe(204);
          expect(body).toBe('');
          return;
        }
        expect(status).toBe(200);
        expect(contentType).toMatch(/^application\/json/);
        expect(shapeLike(JSON.parse(body), c.answer)).toEqual(c.answer);
      });
    }

    it('echoes ids exactly, digit for digit', async () => {
      for (const id of EXACT_IDS) {
        const { body } = await post(
          net.httpUrl,
          `{"jsonrpc":"2.0","method":"echo","params":[],"id":${id}}`,
        );
        expect(body).toContain(`"id":${id}`);
      }
    });

    it('refuses GET with 405 and Allow: POST', async () => {
      const response = await fetch(net.httpUrl, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    });

    it('answers 404 outside /rpc', async () => {
      const { status } = await post(new URL('/other', net.httpUrl).href, '{}');
      expect(status).toBe(404);
    });

    it('refuses a non-JSON content type with 415', async () => {
      const { status } = await post(net.httpUrl, '{}', { 'content-type': 'text/plain' });
      expect(status).toBe(415);
    });

    it('answers a body over 1 MiB with 413 and -32004', async () => {
      const big = `{"jsonrpc":"2.0","method":"echo","params":["${'x'.repeat(1024 * 1024)}"],"id":1}`;
      const { status, body } = await post(net.httpUrl, big);
      expect(status).toBe(413);
      expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32004 } });
    });

    it('answers a batch over 100 with one -32003', async () => {
      const batch = `[${Array.from({ length: 101 }, (_, i) => `{"jsonrpc":"2.0","method":"get_data","id":${i}}`).join(',')}]`;
      const { body } = await post(net.httpUrl, batch);
      expect(JSON.parse(body)).toMatchObject({ id: null, error: { code: -32003 } });
    });

    it('answers a batch of 100 in request order', async () => {
      const batch = `[${Array.from({ length: 100 }, (_, i) => `{"jsonrpc":"2.0","method":"sleep","params":{"ms":${(100 - i) % 7}},"id":${i}}`).join(',')}]`;
      const answers = JSON.parse((await post(net.httpUrl, batch)).body) as Array<{ id: number }>;
      expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    });
  });

  duplexSuite('WebSocket /ws', () => openWebSocket(net.wsUrl));

  it('refuses WebSocket upgrades outside /ws', async () => {
    await expect(openWebSocket(net.wsUrl.replace(/\/ws$/, '/nope'))).rejects.toThrow();
  });
});

for (const framing of ['newline', 'content-length'] as const satisfies readonly Framing[]) {
  describe(`conformance server over stdio (--stdio ${framing})`, () => {
    const peers: ReturnType<typeof spawnStdio>[] = [];
    const open = async () => {
      const peer = spawnStdio(framing);
      peers.push(peer);
      return peer;
    };
    afterAll(async () => {
      for (const peer of peers) {
        await peer.close();
        // Nothing but well-formed frames on stdout.
        expect(peer.garbage).toEqual([]);
      }
    });

    duplexSuite('raw frames', open);

    it('survives frames split byte by byte and several frames in one write', async () => {
      const peer = await open();
      const one = Buffer.from(
        framing === 'newline'
          ? '{"jsonrpc":"2.0","method":"echo","params":["é😀"],"id":1}\n'
          : `Content-Length: ${Buffer.byteLength('{"jsonrpc":"2.0","method":"echo","params":["é😀"],"id":1}')}\r\n\r\n{"jsonrpc":"2.0","method":"echo","params":["é😀"],"id":1}`,
      );
      for (const byte of one) peer.write(Buffer.from([byte]));
      expect(JSON.parse(await peer.next())).toEqual({ jsonrpc: '2.0', id: 1, result: ['é😀'] });
      const two = Buffer.concat([one, one]);
      peer.write(two);
      expect(JSON.parse(await peer.next()).id).toBe(1);
      expect(JSON.parse(await peer.next()).id).toBe(1);
    });

    it('exits 0 when stdin ends', async () => {
      const peer = await open();
      peer.send('{"jsonrpc":"2.0","method":"get_data","id":1}');
      await peer.next();
      peer.child.stdin!.end();
      expect(await peer.exited).toBe(0);
      expect(peer.garbage).toEqual([]);
    });
  });
}

describe('--stdio auto', () => {
  for (const framing of ['newline', 'content-length'] as const) {
    it(`detects ${framing} framing from the first bytes`, async () => {
      const peer = spawnStdio(framing, ['--stdio', 'auto']);
      try {
        peer.send('{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":1}');
        expect(JSON.parse(await peer.next())).toEqual({ jsonrpc: '2.0', id: 1, result: 7 });
      } finally {
        await peer.close();
      }
      expect(peer.garbage).toEqual([]);
    });
  }
});

describe('command line', () => {
  const children: NetworkChild[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await child.close();
  });

  it('--host is used in the printed URLs', async () => {
    const child = await spawnNetwork(['--port', '0', '--host', '127.0.0.1']);
    children.push(child);
    expect(child.firstLine.startsWith('listening http://127.0.0.1:')).toBe(true);
  });

  it('a bad option exits 2 with usage on stderr', async () => {
    await expect(spawnNetwork(['--port', 'abc'])).rejects.toThrow(/exited with 2.*--port/s);
    await expect(spawnNetwork(['--stdio', 'xml'])).rejects.toThrow(/exited with 2/);
    await expect(spawnNetwork(['--bogus'])).rejects.toThrow(/exited with 2/);
  });
});

describe('the stream method count, pulled with raw frames', () => {
  const children: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const child of children.splice(0).reverse()) await child.close();
  });

  async function exchangeAll(
    peer: DuplexPeer,
    exchanges: ReadonlyArray<readonly [string, string]>,
  ): Promise<void> {
    for (const [request, answer] of exchanges) {
      peer.send(request);
      expect(await peer.next()).toBe(answer);
    }
  }

  it('default profile over WebSocket: a handle, pages of rpc.stream.next, -32010 at the end', async () => {
    const net = await spawnNetwork();
    children.push(net);
    const peer = await openWebSocket(net.wsUrl);
    children.push(peer);
    await exchangeAll(peer, [
      [
        '{"jsonrpc":"2.0","id":1,"method":"count","params":[3]}',
        '{"jsonrpc":"2.0","id":1,"result":{"stream":"s1","resumable":true}}',
      ],
      [
        '{"jsonrpc":"2.0","id":2,"method":"rpc.stream.next","params":{"stream":"s1","max":2}}',
        '{"jsonrpc":"2.0","id":2,"result":{"items":[1,2],"done":false}}',
      ],
      [
        '{"jsonrpc":"2.0","id":3,"method":"rpc.stream.next","params":{"stream":"s1","max":2}}',
        '{"jsonrpc":"2.0","id":3,"result":{"items":[3],"done":true}}',
      ],
      [
        '{"jsonrpc":"2.0","id":4,"method":"rpc.stream.next","params":{"stream":"s1"}}',
        '{"jsonrpc":"2.0","id":4,"error":{"code":-32010,"message":"Stream ended","data":{"stream":"s1"}}}',
      ],
      [
        '{"jsonrpc":"2.0","id":5,"method":"count","params":{"rpc.stream.resume":{"from":2,"params":[4]}}}',
        '{"jsonrpc":"2.0","id":5,"result":{"stream":"s2","resumable":true}}',
      ],
      [
        '{"jsonrpc":"2.0","id":6,"method":"rpc.stream.next","params":["s2",10]}',
        '{"jsonrpc":"2.0","id":6,"result":{"items":[3,4],"done":true}}',
      ],
      [
        '{"jsonrpc":"2.0","id":7,"method":"count","params":["x"]}',
        '{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":[{"path":["n"],"message":"Expected an integer from 0 to 1000000"}]}}',
      ],
    ]);
  });

  it('default profile over HTTP: the handle is a UUID and pulls work across requests', async () => {
    const net = await spawnNetwork();
    children.push(net);
    const open = await post(net.httpUrl, '{"jsonrpc":"2.0","id":1,"method":"count","params":[2]}');
    const stream = JSON.parse(open.body).result.stream as string;
    expect(stream).toMatch(/^[0-9a-f-]{36}$/);
    const pull = await post(
      net.httpUrl,
      `{"jsonrpc":"2.0","id":2,"method":"rpc.stream.next","params":{"stream":"${stream}","max":5}}`,
    );
    expect(pull.body).toBe('{"jsonrpc":"2.0","id":2,"result":{"items":[1,2],"done":true}}');
  });

  it('--streams kotlinx over WebSocket: a flow id, nextFlowValue one value at a time, -32001, cancelFlow', async () => {
    const net = await spawnNetwork(['--port', '0', '--streams', 'kotlinx']);
    children.push(net);
    const peer = await openWebSocket(net.wsUrl);
    children.push(peer);
    const next = 'kotlinx.rpc.jsonrpc.internal.nextFlowValue';
    await exchangeAll(peer, [
      [
        '{"jsonrpc":"2.0","id":1,"method":"count","params":[2]}',
        '{"jsonrpc":"2.0","id":1,"result":1}',
      ],
      [
        `{"jsonrpc":"2.0","id":2,"method":"${next}","params":{"flowId":1}}`,
        '{"jsonrpc":"2.0","id":2,"result":1}',
      ],
      [
        `{"jsonrpc":"2.0","id":3,"method":"${next}","params":[1]}`,
        '{"jsonrpc":"2.0","id":3,"result":2}',
      ],
      [
        `{"jsonrpc":"2.0","id":4,"method":"${next}","params":{"flowId":1}}`,
        '{"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"Flow completed","data":{"flowId":1}}}',
      ],
      [
        '{"jsonrpc":"2.0","id":5,"method":"count","params":[9]}',
        '{"jsonrpc":"2.0","id":5,"result":2}',
      ],
      [
        '{"jsonrpc":"2.0","id":6,"method":"kotlinx.rpc.jsonrpc.internal.cancelFlow","params":{"flowId":2}}',
        '{"jsonrpc":"2.0","id":6,"result":null}',
      ],
      [
        `{"jsonrpc":"2.0","id":7,"method":"${next}","params":{"flowId":2}}`,
        '{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Flow completed","data":{"flowId":2}}}',
      ],
      [
        '{"jsonrpc":"2.0","id":8,"method":"rpc.stream.next","params":{"stream":"s1"}}',
        '{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found"}}',
      ],
    ]);
  });

  it('--streams kotlinx over stdio (newline framing)', async () => {
    const peer = spawnStdio('newline', ['--streams', 'kotlinx']);
    children.push(peer);
    await exchangeAll(peer, [
      [
        '{"jsonrpc":"2.0","id":1,"method":"count","params":[1]}',
        '{"jsonrpc":"2.0","id":1,"result":1}',
      ],
      [
        '{"jsonrpc":"2.0","id":2,"method":"kotlinx.rpc.jsonrpc.internal.nextFlowValue","params":{"flowId":1}}',
        '{"jsonrpc":"2.0","id":2,"result":1}',
      ],
    ]);
  });

  it('a bad --streams exits 2', async () => {
    await expect(spawnNetwork(['--streams', 'grpc'])).rejects.toThrow(/exited with 2.*--streams/s);
  });
});
