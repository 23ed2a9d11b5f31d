/**
 * `createWebSocketTransport`: a reconnecting client `Transport`. It imports no `node:` module:
 * on Node and Bun it loads `ws` with a dynamic import, elsewhere (Deno included, unless handshake
 * headers are wanted) it uses the global `WebSocket`.
 *
 * @module
 */
import {
  ConnectionClosedError,
  DEFAULT_CLIENT_MAX_MESSAGE_BYTES,
  type Transport,
  TransportError,
} from '@jsonrpc-kit/core';
import {
  backoffDelay,
  checkOptionNames,
  createTransportState,
  type OptionNames,
  resolveBackoff,
  toError,
} from '@jsonrpc-kit/core/engine';
import {
  DEFAULT_RECONNECT,
  type ReconnectOptions,
  type ResolvedReconnectOptions,
} from './backoff.js';
import { CloseCode, closeReasonText } from './close-codes.js';
import {
  createHeartbeatMonitor,
  DEFAULT_HEARTBEAT,
  type HeartbeatMonitor,
  type HeartbeatOptions,
} from './heartbeat.js';
import { afterSend, beforeSend, type Corkable, failWait, type SendFlowOwner } from './send-flow.js';

/** Where a client transport is in its life. */
export type WebSocketTransportState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/**
 * Messages a client transport holds while it is not connected.
 *
 * @default 1000
 */
export const DEFAULT_CLIENT_MAX_QUEUE: number = 1000;

/**
 * Milliseconds an opening handshake may take before the attempt counts as failed.
 *
 * @default 10000
 */
export const DEFAULT_CONNECT_TIMEOUT: number = 10_000;

/**
 * Bytes a client socket may buffer before `send()` waits.
 *
 * @default 1048576 (1 MiB)
 */
export const DEFAULT_CLIENT_HIGH_WATER_MARK: number = 1024 * 1024;

/**
 * Milliseconds `close()` waits for the server to answer the close frame before dropping the
 * socket: a frozen server must not hold `close()` for the 30 s of the `ws` close handshake.
 *
 * @default 1000
 */
export const DEFAULT_CLOSE_TIMEOUT: number = 1000;

/** How often a waiting `send()` re-checks `bufferedAmount`, in ms (browsers have no drain event). */
const BUFFER_POLL_MS = 5;

const CONNECTING = 0;
const OPEN = 1;

/** The part of the WHATWG `WebSocket` (and of `ws`) the transport uses. */
export interface WebSocketLike {
  /** `0` connecting, `1` open, `2` closing, `3` closed. */
  readonly readyState: number;
  /** Bytes queued by `send()` and not yet sent. */
  readonly bufferedAmount: number;
  /** How binary messages are delivered (`"arraybuffer"`, `"nodebuffer"`, …). */
  binaryType: string;
  /** Called once the connection is open. */
  onopen: ((event: any) => void) | null;
  /** Called with each message received. */
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  /** Called once the connection is closed, with the close code and reason. */
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null;
  /** Called on a connection error (a close follows). */
  onerror: ((event: any) => void) | null;
  /** Queues a text message. */
  send(data: string): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
}

/** A `WebSocket` constructor: the global one, `ws`'s, or any compatible one. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: any,
) => WebSocketLike;

/** Options of {@link createWebSocketTransport}. */
export interface WebSocketTransportOptions {
  /** The server's `ws:` or `wss:` URL. */
  readonly url: string | URL;
  /** Subprotocols to offer. */
  readonly protocols?: string | readonly string[] | undefined;
  /** Headers of the opening handshake. Only `ws` (Node) can send them; browsers cannot. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * How to reconnect after the socket drops, or `false` to close the transport instead.
   *
   * @default DEFAULT_RECONNECT (exponential from 500 ms to 30 s, jitter 0.5, no attempt limit)
   */
  readonly reconnect?: ReconnectOptions | false | undefined;
  /**
   * Ping the server when silent for `interval` ms and drop the socket (then reconnect) when no
   * pong comes within `timeout` ms. Needs a socket that can ping (`ws`); browsers cannot send
   * pings (they answer the server's), so there it is ignored. `false` turns it off.
   *
   * @default DEFAULT_HEARTBEAT ({ interval: 30_000, timeout: 10_000 })
   */
  readonly heartbeat?: HeartbeatOptions | false | undefined;
  /**
   * How many sends may wait while disconnected (the offline queue); they go out after
   * reconnecting. When it is full (or `false`: no offline queue), `send()` rejects at once with
   * `CONNECTION_CLOSED`. Sends before the first connection opens always wait (up to `maxQueue`, or
   * {@link DEFAULT_CLIENT_MAX_QUEUE} with `false`).
   *
   * @default DEFAULT_CLIENT_MAX_QUEUE (1000)
   */
  readonly maxQueue?: number | false | undefined;
  /**
   * Milliseconds one opening handshake may take, and the first connection may take to open,
   * attempts included. A transport whose first connection has not opened by then (nothing
   * listens, the server refuses the upgrade, the name does not resolve) closes: `start()` and the
   * calls waiting for it fail with a `TransportError` whose `cause` is the last attempt's error
   * (`ECONNREFUSED`, `Unexpected server response: 403`, …). With `reconnect: false` the first
   * failed attempt closes it at once. Once a connection has opened, `reconnect` alone decides.
   *
   * @default DEFAULT_CONNECT_TIMEOUT (10000)
   */
  readonly connectTimeout?: number | undefined;
  /**
   * Bytes the socket may buffer before `send()` waits for them to go out.
   *
   * @default DEFAULT_CLIENT_HIGH_WATER_MARK (1 MiB)
   */
  readonly highWaterMark?: number | undefined;
  /**
   * Milliseconds `close()` waits for the server's answer to the close frame; then the socket is
   * dropped (`terminate()` on `ws`; elsewhere the transport stops waiting and closes).
   *
   * @default DEFAULT_CLOSE_TIMEOUT (1000)
   */
  readonly closeTimeout?: number | undefined;
  /**
   * The largest message taken from the server, in bytes. A larger one is not read whole: `ws`
   * closes the connection with 1009 (message too big), the calls in flight fail with a
   * `ConnectionClosedError` whose `cause` is a `TransportError` naming the limit, and the transport
   * reconnects as after any drop. Applied where the transport opens the socket with `ws` (Node,
   * no `WebSocket` option given): a browser's `WebSocket`, or one passed in the `WebSocket`
   * option, has no such setting.
   *
   * @default DEFAULT_CLIENT_MAX_MESSAGE_BYTES (16 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /** The `WebSocket` constructor to use. @default `ws` on Node, the global `WebSocket` elsewhere */
  readonly WebSocket?: WebSocketConstructor | undefined;
  /**
   * Called on every change of {@link WebSocketTransport.state}.
   *
   * @param state - the new state
   * @param previous - the state before
   * @param error - why, when a failure caused the change: for `reconnecting`, why the socket
   *   dropped; for `closed`, why the transport closed (a first connection that could not open
   *   gives a `TransportError` whose `cause` is the refusal). `undefined` for `open` and after
   *   `close()`.
   */
  readonly onStateChange?:
    | ((
        state: WebSocketTransportState,
        previous: WebSocketTransportState,
        error?: Error | undefined,
      ) => void)
    | undefined;
  /** Called after each successful reconnect (after `handler.onReconnect`): resubscribe here. */
  readonly onReconnect?: (() => void) | undefined;
}

/** A reconnecting WebSocket {@link Transport}. */
export interface WebSocketTransport extends Transport {
  /** Where the transport is: `connecting` (first time), `open`, `reconnecting`, `closed`. */
  readonly state: WebSocketTransportState;
  /** Resolves when the transport has closed for good. */
  readonly closed: Promise<void>;
}

interface Queued {
  readonly message: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

interface NodeWebSocketExtras {
  _socket?: Partial<Corkable>;
  ping?: () => void;
  terminate?: () => void;
  on?: (event: string, listener: (...args: any[]) => void) => void;
  off?: (event: string, listener: (...args: any[]) => void) => void;
}

/** Bytes the socket holds; 0 for sockets that do not say (workerd has no `bufferedAmount`). */
function buffered(socket: WebSocketLike): number {
  const amount = socket.bufferedAmount;
  return typeof amount === 'number' ? amount : 0;
}

let nodeWebSocket: Promise<WebSocketConstructor> | undefined;

function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

function isBun(): boolean {
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
interface LoadedWebSocket {
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
function loadWebSocket(headers: boolean): Promise<LoadedWebSocket> {
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

function errorOf(event: unknown): Error | undefined {
  if (event instanceof Error) return event;
  const inner = (event as { error?: unknown } | null)?.error;
  if (inner instanceof Error) return inner;
  const message = (event as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? new Error(message) : undefined;
}

const decoder: TextDecoder | undefined =
  typeof TextDecoder === 'undefined' ? undefined : new TextDecoder('utf-8', { fatal: true });

/** Every name of {@link WebSocketTransportOptions}. */
const CLIENT_OPTION_NAMES: OptionNames<WebSocketTransportOptions> = {
  url: true,
  protocols: true,
  headers: true,
  reconnect: true,
  heartbeat: true,
  maxQueue: true,
  connectTimeout: true,
  highWaterMark: true,
  closeTimeout: true,
  maxMessageBytes: true,
  WebSocket: true,
  onStateChange: true,
  onReconnect: true,
};

/** Old option names of {@link createWebSocketTransport}, and what replaced them. */
const RENAMED_CLIENT_OPTIONS: Readonly<Record<string, string>> = {
  maxPayload: 'maxMessageBytes',
  queue: 'maxQueue (a number, or false to fail sends at once while disconnected)',
};

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
  checkOptionNames(
    'createWebSocketTransport',
    options,
    CLIENT_OPTION_NAMES,
    RENAMED_CLIENT_OPTIONS,
  );
  const url = String(options.url);
  const protocols =
    options.protocols === undefined
      ? undefined
      : typeof options.protocols === 'string'
        ? options.protocols
        : [...options.protocols];
  const reconnect: ResolvedReconnectOptions | false =
    options.reconnect === false
      ? false
      : options.reconnect === undefined
        ? DEFAULT_RECONNECT
        : resolveBackoff(options.reconnect, DEFAULT_RECONNECT, 'reconnect', {});
  const heartbeat = options.heartbeat === undefined ? DEFAULT_HEARTBEAT : options.heartbeat;
  const queueEnabled = options.maxQueue !== false;
  const maxQueue =
    options.maxQueue === false || options.maxQueue === undefined
      ? DEFAULT_CLIENT_MAX_QUEUE
      : options.maxQueue;
  const connectTimeout = options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
  const highWaterMark = options.highWaterMark ?? DEFAULT_CLIENT_HIGH_WATER_MARK;
  const closeTimeout = options.closeTimeout ?? DEFAULT_CLOSE_TIMEOUT;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_CLIENT_MAX_MESSAGE_BYTES;
  if (!(maxMessageBytes > 0))
    throw new RangeError(`maxMessageBytes must be > 0, got ${maxMessageBytes}`);

  let state: WebSocketTransportState = 'connecting';
  const contract = createTransportState();
  let socket: (WebSocketLike & NodeWebSocketExtras) | undefined;
  let everOpened = false;
  let userClosed = false;
  let finished = false;
  let attempts = 0;
  let lastError: Error | undefined;
  let queue: Queued[] = [];
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let connectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bounds the first connection: see `connectTimeout`. */
  let phaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** Why the last attempt at a first connection failed. */
  let attemptError: Error | undefined;
  let closeTimer: ReturnType<typeof setTimeout> | undefined;
  let heartbeatMonitor: HeartbeatMonitor | undefined;

  let resolveStart!: () => void;
  let rejectStart!: (error: Error) => void;
  const startPromise = new Promise<void>((resolve, reject) => {
    resolveStart = resolve;
    rejectStart = reject;
  });
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const setState = (next: WebSocketTransportState, error?: Error): void => {
    if (next === state) return;
    const previous = state;
    state = next;
    if (options.onStateChange !== undefined) {
      try {
        options.onStateChange(next, previous, error);
      } catch (error) {
        report(error);
      }
    }
  };

  const report = (error: unknown): void => {
    contract.report(toError(error));
  };

  /** Messages sent in this turn, framed together as it ends (see `send-flow.ts`). */
  let turnMessages: string[] = [];
  /** Their UTF-16 units: counted with the socket's buffer against the high-water mark. */
  let turnUnits = 0;

  /**
   * Frames this turn's messages on the socket, if it is still open. One that closed in the turn
   * takes none, as it would have taken none from `send()`.
   */
  const flushTurn = (): void => {
    const messages = turnMessages;
    if (messages.length === 0) return;
    turnMessages = [];
    turnUnits = 0;
    const open = socket;
    if (open === undefined || open.readyState !== OPEN) return;
    try {
      for (let i = 0; i < messages.length; i++) open.send(messages[i]!);
    } catch (error) {
      report(new TransportError('Send failed', { cause: error }));
    }
  };

  /** The send flow (coalescing, buffer wait) of whichever socket is open. */
  const flow: SendFlowOwner = {
    flowTurn: undefined,
    flowWait: undefined,
    flowBuffered: () => (socket === undefined ? 0 : buffered(socket)) + turnUnits,
    flowOpen: () => socket !== undefined && socket.readyState === OPEN,
    // Browsers have no drain event: poll.
    flowArm: (check) => setTimeout(check, BUFFER_POLL_MS),
    flowPause: noop,
    flowResume: noop,
    flowFlush: flushTurn,
  };

  const write = (open: WebSocketLike & NodeWebSocketExtras, message: string): void => {
    // Where the turn ends later (Node, Deno, Bun), the message waits for it; elsewhere
    // (browsers) it is framed now.
    if (beforeSend(flow, open._socket)) {
      turnMessages.push(message);
      turnUnits += message.length;
    } else open.send(message);
  };

  const stopHeartbeat = (): void => {
    heartbeatMonitor?.stop();
    heartbeatMonitor = undefined;
  };

  const startHeartbeat = (open: WebSocketLike & NodeWebSocketExtras): void => {
    if (heartbeat === false || typeof open.ping !== 'function' || typeof open.on !== 'function') {
      return;
    }
    const { timeout } = heartbeat;
    const monitor = createHeartbeatMonitor(heartbeat);
    heartbeatMonitor = monitor;
    const watch = monitor.add({
      ping: () => open.ping!(),
      dead: () => {
        lastError = new TransportError(`Heartbeat: no pong within ${timeout} ms`);
        stopHeartbeat();
        if (typeof open.terminate === 'function') open.terminate();
        else open.close();
      },
    });
    open.on('pong', watch.alive);
  };

  const finish = (error: Error | undefined): void => {
    if (finished) return;
    finished = true;
    setState('closed', error);
    stopHeartbeat();
    clearTimeout(reconnectTimer);
    clearTimeout(connectTimer);
    clearTimeout(phaseTimer);
    clearTimeout(closeTimer);
    const pending = queue;
    queue = [];
    for (const item of pending) {
      item.reject(new ConnectionClosedError('Connection closed before the message was sent'));
    }
    if (!everOpened) rejectStart(error ?? new ConnectionClosedError());
    try {
      contract.close(error);
    } finally {
      resolveClosed();
    }
  };

  const flushQueue = (open: WebSocketLike & NodeWebSocketExtras): void => {
    const pending = queue;
    queue = [];
    for (const item of pending) {
      try {
        write(open, item.message);
        item.resolve();
      } catch (error) {
        item.reject(new TransportError('Send failed', { cause: error }));
      }
    }
  };

  const scheduleReconnect = (cause: Error | undefined): void => {
    if (reconnect === false || attempts >= reconnect.maxAttempts) {
      finish(
        reconnect === false
          ? (cause ?? new ConnectionClosedError())
          : new TransportError(`Gave up reconnecting after ${attempts} attempts`, { cause }),
      );
      return;
    }
    attempts++;
    setState(everOpened ? 'reconnecting' : state);
    reconnectTimer = setTimeout(() => void connect(), backoffDelay(attempts, reconnect));
  };

  /** The first connection did not open within `connectTimeout`: close, saying why. */
  const giveUpConnecting = (): void => {
    if (everOpened || finished || userClosed) return;
    const current = socket;
    if (current !== undefined) {
      socket = undefined;
      current.onopen = current.onmessage = current.onclose = null;
      current.onerror = noop; // `ws` emits the abort of the handshake as an error
      if (typeof current.terminate === 'function') current.terminate();
      else current.close();
    }
    const why =
      attemptError ??
      lastError ??
      new TransportError(`No answer to the opening handshake within ${connectTimeout} ms`);
    finish(
      new TransportError(`Cannot connect to ${url} within ${connectTimeout} ms: ${why.message}`, {
        cause: why,
      }),
    );
  };

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

  /**
   * The `message` listener of Node's `ws` (not Bun's): a text frame comes as a Buffer of bytes
   * `ws` has checked are UTF-8, without the event object `onmessage` makes for each message.
   */
  const onNodeMessage = (data: Buffer | ArrayBuffer, isBinary: boolean): void => {
    if (isBinary) onMessage({ data });
    else contract.deliver((data as Buffer).toString());
  };

  const connect = async (): Promise<void> => {
    reconnectTimer = undefined;
    let loaded: LoadedWebSocket;
    try {
      loaded =
        options.WebSocket === undefined
          ? await loadWebSocket(options.headers !== undefined)
          : { Ctor: options.WebSocket, ws: false };
    } catch (error) {
      finish(toError(error, (message) => new TransportError(message)));
      return;
    }
    if (finished || userClosed) return;
    const Ctor = loaded.Ctor;
    const isNodeWs = loaded.ws;
    let current: WebSocketLike & NodeWebSocketExtras;
    try {
      current = isNodeWs
        ? new Ctor(url, protocols as string[] | undefined, {
            perMessageDeflate: false,
            maxPayload: maxMessageBytes,
            ...(options.headers === undefined ? {} : { headers: options.headers }),
          })
        : options.headers === undefined
          ? new Ctor(url, protocols as string[] | undefined)
          : new Ctor(url, protocols as string[] | undefined, { headers: options.headers });
    } catch (error) {
      // A malformed URL or protocol list never gets better: give up now.
      finish(new TransportError('Cannot open WebSocket', { cause: error }));
      return;
    }
    socket = current;
    lastError = undefined;
    current.binaryType = 'arraybuffer';
    connectTimer = setTimeout(() => {
      lastError = new TransportError(`Opening handshake took over ${connectTimeout} ms`);
      if (typeof current.terminate === 'function') current.terminate();
      else current.close();
    }, connectTimeout);
    current.onopen = () => {
      clearTimeout(connectTimer);
      if (userClosed) return;
      clearTimeout(phaseTimer);
      attempts = 0;
      const reconnected = everOpened;
      everOpened = true;
      setState('open');
      startHeartbeat(current);
      flushQueue(current);
      if (!reconnected) {
        resolveStart();
        return;
      }
      try {
        contract.handler?.onReconnect?.();
      } catch (error) {
        report(error);
      }
      try {
        options.onReconnect?.();
      } catch (error) {
        report(error);
      }
    };
    const listens = isNodeWs && !isBun() && typeof current.on === 'function';
    if (listens) current.on!('message', onNodeMessage);
    else current.onmessage = onMessage;
    current.onerror = (event) => {
      const error = errorOf(event);
      // `ws` refused a message over `maxMessageBytes` (and closes with 1009): say so to the calls.
      lastError =
        (error as { code?: unknown } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
          ? new TransportError(
              `WebSocket message over maxMessageBytes (${maxMessageBytes} bytes): closed with 1009`,
              { cause: error },
            )
          : (error ?? lastError);
    };
    current.onclose = (event) => {
      clearTimeout(connectTimer);
      stopHeartbeat();
      if (socket === current) {
        socket = undefined;
        failWait(flow, new ConnectionClosedError());
      }
      current.onopen = current.onmessage = current.onerror = current.onclose = null;
      if (listens) current.off?.('message', onNodeMessage);
      if (userClosed) {
        finish(undefined);
        return;
      }
      const detail =
        event.reason !== ''
          ? `: ${event.reason}`
          : event.code === CloseCode.MessageTooBig
            ? ': a message was too large for the server'
            : '';
      let error: Error =
        lastError instanceof TransportError
          ? lastError
          : new ConnectionClosedError(
              `WebSocket closed (${event.code}${detail})`,
              lastError === undefined ? undefined : { cause: lastError },
            );
      if (!everOpened) {
        // The first connection did not open: what refused it (ECONNREFUSED, a 403, a DNS
        // failure) is what the caller needs, not the 1006 that follows.
        const why = lastError ?? error;
        attemptError = why;
        error = new TransportError(`Cannot connect to ${url}: ${why.message}`, { cause: why });
      }
      const wasOpen = state === 'open';
      if (wasOpen && reconnect !== false) {
        setState('reconnecting', error);
        try {
          contract.handler?.onDisconnect?.(error);
        } catch (hookError) {
          report(hookError);
        }
      }
      scheduleReconnect(error);
    };
  };

  return {
    get state() {
      return state;
    },
    closed: closedPromise,
    start(owner) {
      if (contract.started) return contract.start(owner);
      if (finished) return Promise.reject(new ConnectionClosedError());
      void contract.start(owner);
      phaseTimer = setTimeout(giveUpConnecting, connectTimeout);
      void connect();
      return startPromise;
    },
    send(message) {
      if (finished || userClosed) return Promise.reject(new ConnectionClosedError());
      const open = socket;
      if (open !== undefined && open.readyState === OPEN && state === 'open') {
        try {
          write(open, message);
        } catch (error) {
          return Promise.reject(new TransportError('Send failed', { cause: error }));
        }
        return afterSend(flow, highWaterMark);
      }
      if (everOpened && !queueEnabled) {
        return Promise.reject(new ConnectionClosedError('WebSocket is not open'));
      }
      if (queue.length >= maxQueue) {
        return Promise.reject(
          new ConnectionClosedError(
            `WebSocket is not open and the send queue is full (${maxQueue})`,
          ),
        );
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ message, resolve, reject });
      });
    },
    close(reason) {
      if (finished || userClosed) return closedPromise;
      userClosed = true;
      clearTimeout(reconnectTimer);
      const open = socket;
      if (open !== undefined && (open.readyState === OPEN || open.readyState === CONNECTING)) {
        if (open.readyState === OPEN) {
          // What this turn sent goes before the close frame.
          flushTurn();
          open.close(CloseCode.Normal, closeReasonText(reason));
          // The server may never answer the close frame: drop the socket after a grace period.
          closeTimer = setTimeout(() => {
            if (typeof open.terminate === 'function') {
              open.terminate();
              return;
            }
            open.onopen = open.onmessage = open.onerror = open.onclose = null;
            if (socket === open) {
              socket = undefined;
              failWait(flow, new ConnectionClosedError());
            }
            stopHeartbeat();
            finish(undefined);
          }, closeTimeout);
        } else if (typeof open.terminate === 'function') open.terminate();
        else open.close();
      } else {
        finish(undefined);
      }
      return closedPromise;
    },
  };
}

function noop(): void {}
