/**
 * Raw-bytes checks of a JSON-RPC endpoint serving the conformance methods, shared by every
 * runtime: the specification's examples and the conformance cases, exact ids, limits, status
 * codes and CORS over HTTP; the same exchanges over WebSocket.
 */
import { describe, expect, it } from 'vitest';
import {
  type Case,
  EXACT_IDS,
  METHOD_CASES,
  SPEC_CASES,
  shapeLike,
} from '../../../../examples/conformance-server/test/cases.js';
import {
  type DuplexPeer,
  post as postOnce,
} from '../../../../examples/conformance-server/test/raw-peers.js';

/** Every exchange both transports must answer alike. */
export const ALL_CASES: readonly Case[] = [...SPEC_CASES, ...METHOD_CASES];

/** What the endpoint under test is configured with. */
export interface HttpSuiteOptions {
  /** The one origin its CORS policy allows, when it has one. */
  readonly allowedOrigin?: string;
}

/**
 * POSTs like the raw peer, once more when the connection was reset: after its early 413 a server
 * may drop the keep-alive socket that the next request reuses (workerd does), which says nothing
 * about that next request.
 */
async function post(
  ...args: Parameters<typeof postOnce>
): Promise<Awaited<ReturnType<typeof postOnce>>> {
  try {
    return await postOnce(...args);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
    return postOnce(...args);
  }
}

const batchOf = (n: number, member: (i: number) => string): string =>
  `[${Array.from({ length: n }, (_, i) => member(i)).join(',')}]`;

/**
 * Declares the HTTP checks of an endpoint.
 *
 * @param url - the endpoint, known once the server runs
 * @param options - its CORS policy
 */
export function httpSuite(url: () => string, options: HttpSuiteOptions = {}): void {
  describe('HTTP, raw bytes', () => {
    for (const c of ALL_CASES) {
      it(c.name, async () => {
        const { status, body, contentType } = await post(url(), c.request);
        if (c.answer === undefined) {
          expect({ status, body }).toEqual({ status: 204, body: '' });
          return;
        }
        expect(status).toBe(200);
        expect(contentType).toMatch(/^application\/json/);
        expect(shapeLike(JSON.parse(body), c.answer)).toEqual(c.answer);
      });
    }

    it('echoes ids exactly, digit for digit', async () => {
      for (const id of EXACT_IDS) {
        const { body } = await post(url(), `{"jsonrpc":"2.0","method":"get_data","id":${id}}`);
        expect(body).toBe(`{"jsonrpc":"2.0","id":${id},"result":["hello",5]}`);
      }
    });

    it('refuses GET with 405 and Allow: POST (and OPTIONS with CORS)', async () => {
      const response = await fetch(url(), { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      expect(response.status).toBe(405);
      const allow = options.allowedOrigin === undefined ? 'POST' : 'POST, OPTIONS';
      expect(response.headers.get('allow')).toBe(allow);
    });

    it('refuses a non-JSON content type with 415', async () => {
      const { status } = await post(url(), '{}', { 'content-type': 'text/plain' });
      expect(status).toBe(415);
    });

    it('answers a body over 1 MiB with 413 and -32004', async () => {
      const big = `{"jsonrpc":"2.0","method":"echo","params":["${'x'.repeat(1024 * 1024)}"],"id":1}`;
      const { status, body } = await post(url(), big);
      expect(status).toBe(413);
      expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32004 } });
    });

    it('answers a batch over 100 with one -32003, and a batch of 100 in request order', async () => {
      const tooMany = batchOf(101, (i) => `{"jsonrpc":"2.0","method":"get_data","id":${i}}`);
      expect(JSON.parse((await post(url(), tooMany)).body)).toMatchObject({
        id: null,
        error: { code: -32003 },
      });
      const full = batchOf(
        100,
        (i) => `{"jsonrpc":"2.0","method":"sleep","params":{"ms":${(100 - i) % 7}},"id":${i}}`,
      );
      const answers = JSON.parse((await post(url(), full)).body) as Array<{ id: number }>;
      expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    });

    const origin = options.allowedOrigin;
    if (origin === undefined) return;

    it(`answers CORS preflights for ${origin} and only for it`, async () => {
      const preflight = (from: string) =>
        fetch(url(), {
          method: 'OPTIONS',
          headers: {
            origin: from,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
          signal: AbortSignal.timeout(5_000),
        });
      const allowed = await preflight(origin);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
      expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
      const other = await preflight('https://evil.example');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('adds the CORS headers to answers for the allowed origin', async () => {
      const request = '{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}';
      const answer = (from: string) =>
        fetch(url(), {
          method: 'POST',
          headers: { origin: from, 'content-type': 'application/json' },
          body: request,
          signal: AbortSignal.timeout(5_000),
        });
      const allowed = await answer(origin);
      expect(await allowed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 3 });
      expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
      const other = await answer('https://evil.example');
      await other.arrayBuffer();
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
}

let sentinels = 0;

/**
 * Declares the WebSocket checks of an endpoint: every case, exact ids, cancellation.
 *
 * @param peer - an open raw socket, known once the server runs
 */
export function webSocketSuite(peer: () => DuplexPeer): void {
  /** One raw exchange; `undefined` when a following sentinel is answered first. */
  const exchange = async (text: string, expectAnswer: boolean): Promise<unknown> => {
    peer().send(text);
    if (expectAnswer) return JSON.parse(await peer().next());
    const sentinel = `sentinel-${++sentinels}`;
    peer().send(`{"jsonrpc":"2.0","method":"echo","params":["${sentinel}"],"id":"${sentinel}"}`);
    const answer = JSON.parse(await peer().next()) as { id: unknown };
    return answer.id === sentinel ? undefined : answer;
  };

  describe('WebSocket, raw text', () => {
    for (const c of ALL_CASES) {
      it(c.name, async () => {
        const answer = await exchange(c.request, c.answer !== undefined);
        expect(shapeLike(answer, c.answer)).toEqual(c.answer);
      });
    }

    it('echoes ids exactly, digit for digit', async () => {
      for (const id of EXACT_IDS) {
        peer().send(`{"jsonrpc":"2.0","method":"get_data","id":${id}}`);
        expect(await peer().next()).toBe(`{"jsonrpc":"2.0","id":${id},"result":["hello",5]}`);
      }
    });

    it('cancels a sleep with $/cancelRequest (-32001)', async () => {
      peer().send('{"jsonrpc":"2.0","method":"sleep","params":{"ms":10000},"id":"long"}');
      await new Promise((resolve) => setTimeout(resolve, 50));
      peer().send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"long"}}');
      expect(JSON.parse(await peer().next(3_000))).toMatchObject({
        id: 'long',
        error: { code: -32001 },
      });
    });
  });
}
