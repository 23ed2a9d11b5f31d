/**
 * `createHttpTransport` on `fetch`: browsers, Deno, Bun, edge workers (and Node when `fetch` is
 * given). Imports no `node:` module.
 *
 * @module
 */
import type { Transport } from '@jsonrpc-kit/core';
import { readAnswerText } from './answer-body.js';
import { checkHttpOptions } from './option-names.js';
import {
  answerLimit,
  createPostTransport,
  type FetchLike,
  type HttpReply,
  type HttpTransportOptions,
  type Post,
} from './post-transport.js';

/**
 * The POST function of the fetch path.
 *
 * @param url - the endpoint
 * @param fetchFn - the fetch to call
 * @param maxBytes - the largest answer body taken (see `maxMessageBytes`)
 * @returns the POST function
 */
export function fetchPost(url: string, fetchFn: FetchLike, maxBytes: number): Post {
  return async (body, headers, signal): Promise<HttpReply> => {
    const init: RequestInit = { method: 'POST', headers, body };
    if (signal !== undefined) init.signal = signal;
    const response = await fetchFn(url, init);
    return { status: response.status, body: await readAnswerText(response, maxBytes) };
  };
}

/**
 * A client {@link Transport} that POSTs each message to `url` with `fetch`.
 *
 * `send(text, { signal })` resolves once the exchange is complete: a 2xx JSON body is delivered to
 * `handler.onMessage`, an empty 2xx body (204, notifications) completes quietly when the message
 * held only notifications. It rejects with a `TransportError` (code `TRANSPORT_ERROR`) carrying
 * `status` and `body` for a non-2xx answer, a 2xx body that is not JSON, or an empty 2xx body to a
 * message that holds a request (`"HTTP 204: no answer to a request"`: nobody would ever answer
 * it), so the client fails exactly the calls of that message at once. An answer body over
 * `maxMessageBytes` (16 MiB by default) is dropped as soon as its bytes pass it, the exchange
 * aborted, and `send` rejects with a `TransportError` saying the answer was too large. A network
 * error rejects with
 * a `TransportError` and its `cause`; `signal` with an `AbortError`, `timeout` with a
 * `TimeoutError`, and a send after `close()` with a `ConnectionClosedError`.
 *
 * On Node, the package's `node` entry (selected by the `node` export condition) exports a
 * `createHttpTransport` that uses an undici keep-alive pool instead.
 *
 * @param options - url, headers, fetch, timeout, maxMessageBytes
 * @returns the transport
 * @throws TypeError when no `fetch` is given and the runtime has none
 * @throws RangeError when `timeout` is negative or `maxMessageBytes` not positive
 * @throws TransportError (`TRANSPORT_ERROR`, from `send`) for a non-2xx status, a non-JSON body,
 *   an empty body to a request, or a body over `maxMessageBytes`
 * @example
 * ```ts
 * import { createClient } from '@jsonrpc-kit/client';
 * import { createHttpTransport } from '@jsonrpc-kit/transport-http';
 *
 * const transport = createHttpTransport({
 *   url: 'https://example.com/rpc',
 *   headers: async () => ({ authorization: `Bearer ${await getToken()}` }),
 * });
 * const client = createClient(transport);
 * ```
 */
export function createHttpTransport(options: HttpTransportOptions): Transport {
  checkHttpOptions('createHttpTransport', options);
  let fetchFn = options.fetch;
  if (fetchFn === undefined) {
    if (typeof globalThis.fetch !== 'function') {
      throw new TypeError('createHttpTransport: no fetch in this runtime; pass options.fetch');
    }
    // Called through globalThis: some browsers refuse a detached `fetch`.
    fetchFn = (input, init) => globalThis.fetch(input, init);
  }
  const post = fetchPost(String(options.url), fetchFn, answerLimit(options));
  return createPostTransport(options, { post });
}
