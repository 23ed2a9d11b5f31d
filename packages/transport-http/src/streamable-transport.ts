/**
 * The Streamable HTTP client transport: POSTs each message, reads a JSON or an event-stream
 * answer, keeps the session id, and (when asked) holds the session's GET stream open with
 * reconnection and `Last-Event-ID`. Imports no `node:` module. Its options are in
 * `streamable-transport-options.ts`, what it holds in `streamable-client-state.ts`, the POST
 * exchange in `streamable-client-post.ts` and the GET stream in `streamable-client-get.ts`.
 *
 * @module
 */
import {
  AbortError,
  ConnectionClosedError,
  type SendOptions,
  type Transport,
} from '@jsonrpc-kit/core';
import { openGetStream } from './streamable-client-get.js';
import { exchange } from './streamable-client-post.js';
import { StreamableClientState } from './streamable-client-state.js';
import type {
  StreamableHttpTransport,
  StreamableHttpTransportOptions,
} from './streamable-transport-options.js';

/**
 * A client {@link Transport} for Streamable HTTP (MCP's dialect, any JSON-RPC). Sends
 * `Accept: application/json, text/event-stream`; a JSON answer is delivered whole, an event
 * stream event by event as it arrives (progress, notifications and server→client requests before
 * the answer), so the transport is duplex: give it to `createClient` with `onRequest` and the
 * client's answers to server requests go back as POSTs. The session id from the server is sent
 * with every later request; an answer stream that drops is resumed with `Last-Event-ID`.
 * After `initialize`, the protocol version the server chose is sent as `MCP-Protocol-Version`.
 *
 * `send` resolves once the server accepted the message (JSON answers: once delivered). It rejects
 * with a `TransportError` carrying `status` and `body` for a non-2xx answer (404 also drops the
 * session and calls `onSessionExpired`), with an `AbortError` for `signal`, and with a
 * `ConnectionClosedError` after `close()`.
 *
 * @param options - url, headers, fetch, session header, GET stream and reconnection
 * @returns the transport
 * @throws TypeError when no `fetch` is given and the runtime has none
 * @example
 * ```ts
 * import { createClient } from '@jsonrpc-kit/client';
 * import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
 *
 * const transport = createStreamableHttpTransport({ url: 'https://example.com/mcp', stream: true });
 * const client = createClient(transport, { onNotification: (method, params) => console.log(method, params) });
 * ```
 */
export function createStreamableHttpTransport(
  options: StreamableHttpTransportOptions,
): StreamableHttpTransport {
  const state = new StreamableClientState(options);
  return {
    get sessionId() {
      return state.sessionId;
    },
    setPushWanted(value) {
      state.pushWanted = value;
      if (state.wanted()) {
        if (state.getStream === 'off' && state.sessionId !== undefined && !state.closed) {
          void openGetStream(state);
        }
      } else state.getAbort?.abort();
    },
    start(h) {
      if (state.handler !== undefined) {
        return Promise.reject(new Error('Transport already started'));
      }
      if (state.closed) return Promise.reject(new ConnectionClosedError('HTTP transport closed'));
      state.handler = h;
      for (const message of state.inbox.splice(0)) state.deliver(message);
      return Promise.resolve();
    },
    send(text: string, sendOptions?: SendOptions): Promise<void> {
      if (state.closed) return Promise.reject(new ConnectionClosedError('HTTP transport closed'));
      const signal = sendOptions?.signal;
      if (signal?.aborted) return Promise.reject(new AbortError({ cause: signal.reason }));
      return exchange(state, text, signal);
    },
    async endSession() {
      if (state.sessionId === undefined) return;
      const doFetch = state.doFetch;
      const response = await doFetch(state.url, {
        method: 'DELETE',
        headers: await state.headers({}),
      });
      await response.body?.cancel();
      state.sessionId = undefined;
    },
    async close() {
      if (state.closed) return;
      state.closed = true;
      state.closer.abort(new ConnectionClosedError('HTTP transport closed'));
      state.handler?.onClose();
    },
  };
}
