/**
 * What a server knows of each client, kept in a store shared by the processes of a cluster, so
 * that a Streamable HTTP session initialized on one process is served as such on every other.
 *
 * @module
 */
import type { HandlerContext } from '@jsonrpc-kit/server';
import { type ClientState, clientStateOf } from './context.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';

/** What is kept of one client: what its `initialize`, `logging/setLevel` and subscriptions said. */
export interface McpClientRecord {
  /** The protocol version agreed in `initialize`. */
  readonly protocolVersion?: string | undefined;
  /** The client's name and version. */
  readonly info?: Implementation | undefined;
  /** What the client declared it can do. */
  readonly capabilities?: ClientCapabilities | undefined;
  /** The level it asked for with `logging/setLevel`. */
  readonly logLevel?: LoggingLevel | undefined;
  /** The resources it subscribed to. */
  readonly subscriptions?: readonly string[] | undefined;
}

/**
 * Where a server keeps what it knows of each client, by Streamable HTTP session id
 * (`ctx.transport.sessionId`, given when the handler has a shared session store). Share one
 * between the processes of a cluster (a Redis key per session, say) and every process serves a
 * session as the one that initialized it. Each call may return a promise.
 */
export interface McpClientStore {
  /**
   * The record of a session's client.
   *
   * @param sessionId - the session
   * @returns its record, or `undefined` when none was saved
   */
  load(sessionId: string): Promise<McpClientRecord | undefined> | McpClientRecord | undefined;
  /**
   * Saves the record of a session's client (after `initialize`, `logging/setLevel`,
   * `resources/subscribe` and `resources/unsubscribe`, before their answer).
   *
   * @param sessionId - the session
   * @param record - what the server knows of its client
   * @returns resolves once saved
   */
  save(sessionId: string, record: McpClientRecord): Promise<void> | void;
}

/**
 * The client state of a call, refreshed from the store when the call's session is shared.
 *
 * @param ctx - the handler's context
 * @param store - the store, if any
 * @returns the state (a promise while it loads)
 */
export function sharedClientState(
  ctx: HandlerContext,
  store: McpClientStore | undefined,
): ClientState | Promise<ClientState> {
  const state = clientStateOf(ctx);
  const id = ctx.transport.sessionId;
  if (store === undefined || id === undefined || ctx.peer === undefined) return state;
  return Promise.resolve(store.load(id)).then((record) => {
    if (record === undefined) return state;
    state.protocolVersion = record.protocolVersion;
    state.info = record.info;
    state.capabilities = record.capabilities ?? {};
    state.logLevel = record.logLevel;
    state.subscriptions =
      record.subscriptions === undefined ? undefined : new Set(record.subscriptions);
    // A client sends `notifications/initialized` before any request but ping once it has its
    // `initialize` answer: a request after the record was saved comes from an initialized client.
    if (record.protocolVersion !== undefined) state.initialized = true;
    return state;
  });
}

/**
 * Saves a call's client state, when the call's session is shared.
 *
 * @param ctx - the handler's context
 * @param store - the store, if any
 * @param state - the client's state
 * @returns resolves once saved
 */
export async function saveClientState(
  ctx: HandlerContext,
  store: McpClientStore | undefined,
  state: ClientState,
): Promise<void> {
  const id = ctx.transport.sessionId;
  if (store === undefined || id === undefined || ctx.peer === undefined) return;
  await store.save(id, {
    protocolVersion: state.protocolVersion,
    info: state.info,
    capabilities: state.capabilities,
    logLevel: state.logLevel,
    subscriptions: state.subscriptions === undefined ? undefined : [...state.subscriptions],
  });
}
