/**
 * `createWebSocketTransport`: a reconnecting client `Transport`, composed of its resolved options
 * (`client-options.ts`), its connection and reconnect (`client-connection.ts`), the offline queue
 * (`offline-queue.ts`) and the sends of a turn (`client-turn.ts`). It imports no `node:` module:
 * on Node and Bun it loads `ws` with a dynamic import, elsewhere (Deno included, unless handshake
 * headers are wanted) it uses the global `WebSocket`.
 *
 * @module
 */
import { ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';
import { createTransportState } from '@jsonrpc-kit/core/engine';
import { createClientConnection } from './client-connection.js';
import {
  resolveClientOptions,
  type WebSocketTransport,
  type WebSocketTransportOptions,
} from './client-options.js';
import { OPEN } from './client-socket.js';
import { createOfflineQueue } from './offline-queue.js';
import { afterSend } from './send-flow.js';

export type {
  WebSocketTransport,
  WebSocketTransportOptions,
  WebSocketTransportState,
} from './client-options.js';

/**
 * Creates a client transport over WebSocket that reconnects on its own. `start()` opens the
 * first connection and resolves once it is open (it rejects if the transport gives up first).
 * When an open socket drops, the handler's `onDisconnect(error)` fires (the client rejects the
 * calls in flight), the transport reconnects per `reconnect`, then calls `handler.onReconnect()`
 * and `options.onReconnect()`. Sends while disconnected wait in a bounded queue and go out once,
 * after reconnecting. After `maxAttempts` failed attempts in a row the transport closes:
 * `onClose` gets a `TRANSPORT_ERROR`.
 *
 * Text frames carry messages; a binary frame is decoded as UTF-8 or reported through `onError`.
 *
 * @param options - URL, reconnect policy, heartbeat, maxQueue, maxMessageBytes
 * @returns the transport
 * @throws RangeError when the reconnect options are out of range, or `maxMessageBytes` is not positive
 * @example
 * ```ts
 * import { createClient } from '@jsonrpc-kit/client';
 * import { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';
 *
 * const transport = createWebSocketTransport({
 *   url: 'ws://127.0.0.1:8080/rpc',
 *   reconnect: { strategy: 'exponential', delay: 250, maxDelay: 10_000 },
 *   onReconnect: () => void client.request('subscribe', ['prices']),
 * });
 * const client = createClient(transport);
 * ```
 */
export function createWebSocketTransport(options: WebSocketTransportOptions): WebSocketTransport {
  const config = resolveClientOptions(options);
  const contract = createTransportState();
  const queue = createOfflineQueue(config.maxQueue, config.queueEnabled);
  const connection = createClientConnection(config, contract, queue);
  const { turn, closed } = connection;
  const highWaterMark = config.highWaterMark;

  return {
    get state() {
      return connection.state;
    },
    closed,
    start(owner) {
      if (contract.started) return contract.start(owner);
      if (connection.finished) return Promise.reject(new ConnectionClosedError());
      void contract.start(owner);
      return connection.open();
    },
    send(message) {
      if (connection.finished || connection.userClosed) {
        return Promise.reject(new ConnectionClosedError());
      }
      const open = connection.socket;
      if (open !== undefined && open.readyState === OPEN && connection.state === 'open') {
        try {
          turn.write(open, message);
        } catch (error) {
          return Promise.reject(new TransportError('Send failed', { cause: error }));
        }
        return afterSend(turn.flow, highWaterMark);
      }
      return queue.add(message, connection.everOpened);
    },
    close(reason) {
      return connection.close(reason);
    },
  };
}
