/**
 * The client transport's connection and reconnect: opening a socket (the first within
 * `connectTimeout`), the heartbeat, delivering what arrives, and on a drop telling the owner and
 * opening another after core's backoff, until `maxAttempts`; then `close()` and the end, which
 * refuses what the offline queue holds.
 *
 * @module
 */
import { ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';
import { backoffDelay, type TransportState, toError } from '@jsonrpc-kit/core/engine';
import type { ResolvedClientOptions, WebSocketTransportState } from './client-options.js';
import {
  type ClientSocket,
  CONNECTING,
  createFrameReader,
  errorOf,
  isBun,
  type LoadedWebSocket,
  loadWebSocket,
  OPEN,
} from './client-socket.js';
import { type ClientTurn, createClientTurn } from './client-turn.js';
import { CloseCode, closeReasonText } from './close-codes.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from './heartbeat.js';
import { noop } from './noop.js';
import type { OfflineQueue } from './offline-queue.js';
import { failWait } from './send-flow.js';

/** One client transport's connection, whichever socket it is on now. Internal. */
export interface ClientConnection {
  /** Where the transport is. */
  readonly state: WebSocketTransportState;
  /** The socket, while there is one (open or opening). */
  readonly socket: ClientSocket | undefined;
  /** Whether a connection has opened. */
  readonly everOpened: boolean;
  /** Whether `close()` was called. */
  readonly userClosed: boolean;
  /** Whether the transport has closed for good. */
  readonly finished: boolean;
  /** Resolves when the transport has closed for good. */
  readonly closed: Promise<void>;
  /** The sends of this turn. */
  readonly turn: ClientTurn;
  /**
   * Opens the first connection.
   *
   * @returns resolves once it is open, rejects if the transport gives up first
   */
  open(): Promise<void>;
  /**
   * Closes the socket (what this turn sent goes first) and then the transport.
   *
   * @param reason - why, for the close frame
   * @returns {@link ClientConnection.closed}
   */
  close(reason: unknown): Promise<void>;
}

/**
 * Creates the connection of a client transport.
 *
 * @param config - the resolved options
 * @param contract - the owner-facing half of the transport
 * @param queue - the sends waiting for a connection
 * @returns the connection, not yet opening
 */
export function createClientConnection(
  config: ResolvedClientOptions,
  contract: TransportState,
  queue: OfflineQueue,
): ClientConnection {
  const {
    options,
    url,
    protocols,
    reconnect,
    heartbeat,
    connectTimeout,
    closeTimeout,
    maxMessageBytes,
  } = config;
  let state: WebSocketTransportState = 'connecting';
  let socket: ClientSocket | undefined;
  let everOpened = false;
  let userClosed = false;
  let finished = false;
  let attempts = 0;
  let lastError: Error | undefined;
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

  const turn = createClientTurn(() => socket, report);
  const flow = turn.flow;

  const stopHeartbeat = (): void => {
    heartbeatMonitor?.stop();
    heartbeatMonitor = undefined;
  };

  const startHeartbeat = (open: ClientSocket): void => {
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
    queue.rejectAll();
    if (!everOpened) rejectStart(error ?? new ConnectionClosedError());
    try {
      contract.close(error);
    } finally {
      resolveClosed();
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

  const { onMessage, onNodeMessage } = createFrameReader(contract, report);

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
    let current: ClientSocket;
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
      queue.flush((message) => turn.write(current, message));
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
    get socket() {
      return socket;
    },
    get everOpened() {
      return everOpened;
    },
    get userClosed() {
      return userClosed;
    },
    get finished() {
      return finished;
    },
    closed: closedPromise,
    turn,
    open() {
      phaseTimer = setTimeout(giveUpConnecting, connectTimeout);
      void connect();
      return startPromise;
    },
    close(reason) {
      if (finished || userClosed) return closedPromise;
      userClosed = true;
      clearTimeout(reconnectTimer);
      const open = socket;
      if (open !== undefined && (open.readyState === OPEN || open.readyState === CONNECTING)) {
        if (open.readyState === OPEN) {
          // What this turn sent goes before the close frame.
          turn.flush();
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
