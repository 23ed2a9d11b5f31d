/**
 * `createHttpTransport` for Node: an undici keep-alive pool (`pool.request`), loaded on first use.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import type { Transport } from '@jsonrpc-kit/core';
import type { Dispatcher } from 'undici';
import { DEFAULT_KEEP_ALIVE_TIMEOUT } from './constants.js';
import { fetchPost } from './http-transport.js';
import {
  createPostTransport,
  type HttpReply,
  type HttpTransportOptions,
} from './post-transport.js';

/** Options of the Node `createHttpTransport`: the fetch options plus the undici pool's. */
export interface NodeHttpTransportOptions extends HttpTransportOptions {
  /**
   * An undici dispatcher (`Agent`, `Pool`, `Client`, a mock) to send with; the transport then
   * neither creates nor closes a pool. Ignored when `fetch` is given.
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Most connections the transport's own pool opens to the server; unset: no limit.
   */
  readonly connections?: number;
  /**
   * Milliseconds an idle connection stays open for reuse.
   *
   * @default 4000 ({@link DEFAULT_KEEP_ALIVE_TIMEOUT})
   */
  readonly keepAliveTimeout?: number;
  /**
   * Requests pipelined on one connection.
   *
   * @default 1
   */
  readonly pipelining?: number;
}

/**
 * A client {@link Transport} that POSTs each message to `url`: on Node through an undici
 * keep-alive pool, or through `options.fetch` when given (on Bun, which also selects this entry
 * but whose `undici` cannot send, through Bun's `fetch`). Behaves as the fetch
 * `createHttpTransport` of the package's default entry: `send` resolves once the exchange is
 * complete, 2xx JSON bodies go to `handler.onMessage`, empty 2xx bodies complete quietly when the
 * message held only notifications, non-2xx answers, non-JSON 2xx bodies and empty 2xx bodies to a
 * message holding a request reject with a `TransportError` carrying `status` and `body`,
 * network failures with a `TransportError` and its `cause`, `signal` with an `AbortError`,
 * `timeout` with a `TimeoutError`, and sends after `close()` with a `ConnectionClosedError`.
 * `close()` aborts exchanges in flight and closes the pool the transport created.
 *
 * @param options - url, headers, timeout, and the pool's options or your own dispatcher
 * @returns the transport
 * @throws TypeError when `url` is not an absolute http(s) URL
 * @throws RangeError when `timeout` is negative
 * @example
 * ```ts
 * import { createClient } from '@jsonrpc-kit/client';
 * import { createHttpTransport } from '@jsonrpc-kit/transport-http/node';
 *
 * const client = createClient(createHttpTransport({ url: 'http://127.0.0.1:8545/', timeout: 10_000 }));
 * const block = await client.request('eth_blockNumber');
 * ```
 */
export function createHttpTransport(options: NodeHttpTransportOptions): Transport {
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`createHttpTransport: not an http(s) URL: ${url.href}`);
  }
  if (options.fetch !== undefined) {
    return createPostTransport(options, { post: fetchPost(url.href, options.fetch) });
  }
  // Bun matches the `node` condition, but its `undici` is a stand-in whose `request` answers
  // nothing: use Bun's own fetch there.
  if (options.dispatcher === undefined && typeof process.versions.bun === 'string') {
    return createPostTransport(options, { post: fetchPost(url.href, fetch) });
  }
  const origin = url.origin;
  const path = url.pathname + url.search;
  let dispatcher: Dispatcher | undefined = options.dispatcher;
  const own = dispatcher === undefined;
  let loading: Promise<Dispatcher> | undefined;

  const load = (): Promise<Dispatcher> =>
    (loading ??= import('undici').then((undici) => {
      const poolOptions: ConstructorParameters<typeof undici.Pool>[1] = {
        keepAliveTimeout: options.keepAliveTimeout ?? DEFAULT_KEEP_ALIVE_TIMEOUT,
      };
      if (options.connections !== undefined) poolOptions.connections = options.connections;
      if (options.pipelining !== undefined) poolOptions.pipelining = options.pipelining;
      dispatcher = new undici.Pool(origin, poolOptions);
      return dispatcher;
    }));

  // Load undici now, in the background: the first send should not wait for it.
  if (own) load().catch(() => {});

  const post = async (
    body: string,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal | undefined,
  ): Promise<HttpReply> => {
    const d = dispatcher ?? (await load());
    const answer = await d.request(
      signal === undefined
        ? { origin, path, method: 'POST', headers, body }
        : { origin, path, method: 'POST', headers, body, signal },
    );
    return { status: answer.statusCode, body: await answer.body.text() };
  };

  return createPostTransport(options, {
    post,
    prepareSignal: (signal) => setMaxListeners(0, signal),
    // Destroying our own pool aborts what is in flight: no per-request close signal needed.
    disposeAborts: own,
    dispose: async () => {
      if (!own) return;
      const d = dispatcher ?? (loading === undefined ? undefined : await loading);
      await d?.destroy();
    },
  });
}
