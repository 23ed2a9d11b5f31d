/**
 * Watching a transport's traffic, for logs, debugging and tests.
 *
 * @module
 */
import type { SendOptions, Transport, TransportHandler } from './transport.js';

/** Which way a message went: `"sent"` by this side, or `"received"` from the other. */
export type TapDirection = 'sent' | 'received';

/**
 * Sees every message a tapped transport moves.
 *
 * @param direction - which way the message went
 * @param message - the message text, as on the wire
 */
export type TransportTap = (direction: TapDirection, message: string) => void;

/**
 * Wraps a transport so that every message it sends or delivers is shown to `tap` first. The
 * wrapper is a `Transport` itself and changes nothing else: the handler's hooks (`onError`,
 * `onDisconnect`, `onReconnect`) pass through.
 *
 * @param transport - the transport to watch
 * @param tap - called with each message, before it is sent or delivered
 * @returns the watched transport
 * @example
 * ```ts
 * const transport = tapTransport(createHttpTransport({ url }), (direction, message) =>
 *   console.log(direction === 'sent' ? '→' : '←', message),
 * );
 * ```
 */
export function tapTransport(transport: Transport, tap: TransportTap): Transport {
  return {
    start(handler: TransportHandler) {
      const watched: TransportHandler = {
        onMessage(message) {
          tap('received', message);
          handler.onMessage(message);
        },
        onClose: (error) => handler.onClose(error),
      };
      if (handler.onError) watched.onError = (error) => handler.onError?.(error);
      if (handler.onDisconnect) watched.onDisconnect = (error) => handler.onDisconnect?.(error);
      if (handler.onReconnect) watched.onReconnect = () => handler.onReconnect?.();
      return transport.start(watched);
    },
    send(message: string, options?: SendOptions) {
      tap('sent', message);
      return transport.send(message, options);
    },
    close: (reason) => transport.close(reason),
  };
}
