/**
 * The socket a client transport opens: which `WebSocket` constructor (`ws` on Node and Bun, the
 * global one elsewhere), the parts of `ws` beyond the WHATWG socket it uses, and how it reads what
 * a socket reports (its buffer, an error event, a binary frame).
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';
import type { TransportState } from '@jsonrpc-kit/core/engine';
import type { WebSocketConstructor, WebSocketLike } from './client-options.js';
import type { Corkable } from './send-flow.js';

/** `readyState` of a socket whose handshake is under way. */
export const CONNECTING = 0;
/** `readyState` of an open socket. */
export const OPEN = 1;

/** What `ws` has beyond the WHATWG `WebSocket`; absent elsewhere. */
export interface NodeWebSocketExtras {
  _socket?: Partial<Corkable>;
  ping?: () => void;
  terminate?: () => void;
  on?: (event: string, listener: (...args: any[]) => void) => void;
  off?: (event: string, listener: (...args: any[]) => void) => void;
}

/** A socket the client opened: a WHATWG `WebSocket`, or `ws`'s with its extras. */
export type ClientSocket = WebSocketLike & NodeWebSocketExtras;

/** Bytes the socket holds; 0 for sockets that do not say (workerd has no `bufferedAmount`). */
export function buffered(socket: WebSocketLike): number {
  const amount = socket.bufferedAmount;
  return typeof amount === 'number' ? amount : 0;
}

let nodeWebSocket: Promise<WebSocketConstructor> | undefined;

function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

/** Whether the runtime is Bun. */
export function isBun(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.bun === 'string';
}

/** Deno, which also says it is Node (`process.versions.node`) to npm packages. */
function isDeno(): boolean {
  return (
    typeof (globalThis as { Deno?: { version?: { deno?: unknown } } }).Deno?.version?.deno ===
    'string'
  );
}

/** The constructor the transport opens sockets with, and whether it is `ws`. */
export interface LoadedWebSocket {
  readonly Ctor: WebSocketConstructor;
  readonly ws: boolean;
}

/**
 * `ws` on Node and Bun; on Deno, its own `WebSocket` unless handshake headers are wanted (only
 * `ws` sends them), since `ws` reads environment variables as it loads (`--allow-env`) where the
 * global needs `--allow-net` alone; the global `WebSocket` elsewhere.
 *
 * @param headers - whether the handshake carries headers
 * @returns the constructor
 */
export function loadWebSocket(headers: boolean): Promise<LoadedWebSocket> {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (isNode() && !(isDeno() && global !== undefined && !headers)) {
    // ws's CommonJS entry (see ws.cjs): its ESM wrapper costs Node 20 about 50 ms more to load.
    nodeWebSocket ??= import('./ws.cjs').then(
      (module) => module.default.WebSocket as unknown as WebSocketConstructor,
    );
    return nodeWebSocket.then((Ctor) => ({ Ctor, ws: true }));
  }
  if (global === undefined) {
    return Promise.reject(
      new TransportError('No WebSocket implementation: pass the WebSocket option'),
    );
  }
  return Promise.resolve({ Ctor: global, ws: false });
}

/** The error an `error` event carries, or one made of its message; `undefined` when it has none. */
export function errorOf(event: unknown): Error | undefined {
  if (event instanceof Error) return event;
  const inner = (event as { error?: unknown } | null)?.error;
  if (inner instanceof Error) return inner;
  const message = (event as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? new Error(message) : undefined;
}

/** Decodes binary frames as UTF-8, refusing malformed bytes; absent where there is no `TextDecoder`. */
const decoder: TextDecoder | undefined =
  typeof TextDecoder === 'undefined' ? undefined : new TextDecoder('utf-8', { fatal: true });

/** The message listeners of a client's sockets. */
export interface FrameReader {
  /** The WHATWG `onmessage`: a text frame as a string, a binary one decoded as UTF-8. */
  readonly onMessage: (event: { readonly data: unknown }) => void;
  /**
   * The `message` listener of Node's `ws` (not Bun's): a text frame comes as a Buffer of bytes
   * `ws` has checked are UTF-8, without the event object `onmessage` makes for each message.
   */
  readonly onNodeMessage: (data: Buffer | ArrayBuffer, isBinary: boolean) => void;
}

/**
 * Makes the message listeners of a client transport's sockets, one pair for all of them.
 *
 * @param contract - the owner-facing half of the transport, which delivers each message
 * @param report - reports a binary frame that is not UTF-8
 * @returns the listeners
 */
export function createFrameReader(
  contract: TransportState,
  report: (error: unknown) => void,
): FrameReader {
  const onMessage = (event: { readonly data: unknown }): void => {
    const data = event.data;
    let text: string;
    if (typeof data === 'string') {
      text = data;
    } else {
      try {
        if (decoder === undefined) throw new TypeError('No TextDecoder');
        text = decoder.decode(data as ArrayBuffer | ArrayBufferView);
      } catch (error) {
        report(new TransportError('Binary frame is not valid UTF-8', { cause: error }));
        return;
      }
    }
    contract.deliver(text);
  };

  const onNodeMessage = (data: Buffer | ArrayBuffer, isBinary: boolean): void => {
    if (isBinary) onMessage({ data });
    else contract.deliver((data as Buffer).toString());
  };
  return { onMessage, onNodeMessage };
}
