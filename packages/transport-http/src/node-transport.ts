/**
 * `createHttpTransport` for Node: an undici keep-alive pool (`pool.request`), loaded on first use.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import type { Transport } from '@jsonrpc-kit/core';
import type { Dispatcher } from 'undici';
import { answerTooLarge, declaredTooLarge } from './answer-body.js';
import { DEFAULT_KEEP_ALIVE_TIMEOUT } from './constants.js';
import { fetchPost } from './http-transport.js';
import { checkHttpOptions } from './option-names.js';
import {
  answerLimit,
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
 * message holding a request reject with a `TransportError` carrying `status` and `body`, an
 * answer body over `maxMessageBytes` (16 MiB by default) is dropped as its bytes pass it (the
 * connection destroyed) and rejects with a `TransportError` saying the answer was too large,
 * network failures with a `TransportError` and its `cause`, `signal` with an `AbortError`,
 * `timeout` with a `TimeoutError`, and sends after `close()` with a `ConnectionClosedError`.
 * `close()` aborts exchanges in flight and closes the pool the transport created.
 *
 * @param options - url, headers, timeout, and the pool's options or your own dispatcher
 * @returns the transport
 * @throws TypeError when `url` is not an absolute http(s) URL
 * @throws RangeError when `timeout` is negative or `maxMessageBytes` not positive
 * @throws TransportError (`TRANSPORT_ERROR`, from `send`) for a non-2xx status, a non-JSON body,
 *   an empty body to a request, or a body over `maxMessageBytes`
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
  checkHttpOptions('createHttpTransport (node)', options);
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`createHttpTransport: not an http(s) URL: ${url.href}`);
  }
  const maxBytes = answerLimit(options);
  if (options.fetch !== undefined) {
    return createPostTransport(options, { post: fetchPost(url.href, options.fetch, maxBytes) });
  }
  // Bun matches the `node` condition, but its `undici` is a stand-in whose `request` answers
  // nothing: use Bun's own fetch there.
  if (options.dispatcher === undefined && typeof process.versions.bun === 'string') {
    return createPostTransport(options, { post: fetchPost(url.href, fetch, maxBytes) });
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
    return { status: answer.statusCode, body: await readBody(answer, maxBytes) };
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

/**
 * An undici answer's body as UTF-8 text, its bytes counted as they arrive: past `max` (or when
 * `Content-Length` says it will be) the body is destroyed, which destroys its connection, and
 * the read fails. An abort of the request's signal fails it too.
 */
function readBody(answer: Dispatcher.ResponseData, max: number): Promise<string> {
  const body = answer.body;
  const status = answer.statusCode;
  if (declaredTooLarge(answer.headers['content-length'] as string | undefined, max)) {
    body.destroy();
    return Promise.reject(answerTooLarge(status, max));
  }
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        reject(answerTooLarge(status, max));
        return;
      }
      if (first === undefined) first = chunk;
      else if (rest === undefined) rest = [chunk];
      else rest.push(chunk);
    });
    body.on('end', () => {
      if (first === undefined) return resolve('');
      const text =
        rest === undefined
          ? first.toString('utf8')
          : Buffer.concat([first, ...rest], size).toString('utf8');
      // As undici's `text()` (and fetch's): a leading byte order mark is not part of the text.
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    });
    body.on('error', reject);
  });
}
