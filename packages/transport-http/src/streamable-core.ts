/**
 * The core of the Streamable HTTP handlers: one request in, one reply out, on a runtime-neutral
 * request and reply (the fetch and node:http entries adapt them). It checks the request's policy
 * and protocol version, runs `authenticate`, and hands it to POST, GET or DELETE; the parts are
 * composed through the handler's {@link StreamableState}.
 *
 * @module
 */
import type { ConnectionHandler } from '@jsonrpc-kit/core/engine';
import { HttpContext } from './http-context.js';
import { type SessionOwner, sessionClass } from './http-session.js';
import { checkHttpOptions } from './option-names.js';
import { checkRequest } from './request-policy.js';
import { admit, endSession } from './streamable-auth.js';
import { get } from './streamable-get.js';
import type { StreamableHttpHandlerOptions } from './streamable-options.js';
import { post } from './streamable-post.js';
import { listenRelay } from './streamable-relay.js';
import {
  errorBody,
  reply,
  type StreamableIncoming,
  type StreamableReply,
} from './streamable-reply.js';
import { answerStreamGone, route } from './streamable-route.js';
import { closeSession } from './streamable-sessions.js';
import { StreamableState } from './streamable-state.js';

/** The handler's core, shared by the fetch and the node:http entries. Internal. */
export interface StreamableCore {
  /** Answers one request. */
  handle(incoming: StreamableIncoming): Promise<StreamableReply>;
  /** How many sessions are open. */
  readonly sessions: number;
  /** The body timeout it reads bodies with (ms, `0` for none). */
  readonly bodyTimeout: number;
  /** Closes every session and stream. */
  close(): Promise<void>;
}

/** Serves an admitted request: a POST, the session's stream (GET) or its end (DELETE). */
function serve(
  st: StreamableState,
  incoming: StreamableIncoming,
  ctx: HttpContext,
  cors: readonly string[],
): Promise<StreamableReply> {
  if (incoming.method === 'POST') return post(st, incoming, ctx, cors);
  if (incoming.method === 'GET') return get(st, incoming, ctx, cors);
  return endSession(st, incoming, ctx, cors);
}

/** Serves a request once `authenticate` let it in. */
async function admitted(
  st: StreamableState,
  incoming: StreamableIncoming,
  context: HttpContext,
  cors: readonly string[],
): Promise<StreamableReply> {
  const ctx = await admit(st, context, cors);
  return ctx instanceof HttpContext ? serve(st, incoming, ctx, cors) : ctx;
}

/**
 * Answers one request. Not an `async` function: a POST's own promise is handed on as it is,
 * without one more promise resolved with it (and its two extra turns of the microtask queue).
 */
function handle(st: StreamableState, incoming: StreamableIncoming): Promise<StreamableReply> {
  try {
    const decision = checkRequest(
      st.cfg,
      incoming.method,
      incoming.header,
      st.methods,
      st.allow,
      st.guard,
      incoming.localAddress,
    );
    if (decision.kind === 'answer') return Promise.resolve({ kind: 'policy', decision });
    const cors = decision.cors;
    const version = incoming.header('mcp-protocol-version');
    if (st.versions !== undefined && version !== undefined && !st.versions.includes(version)) {
      return Promise.resolve(
        reply(
          400,
          errorBody(
            -32000,
            `Bad Request: Unsupported protocol version: ${version} (supported versions: ${st.versions.join(', ')})`,
          ),
          cors,
        ),
      );
    }
    const context = incoming.context(st.cfg.maxMessageBytes);
    if (st.cfg.authenticate !== undefined) return admitted(st, incoming, context, cors);
    return serve(st, incoming, context, cors);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The streaming handler's sessions, routing and answers, without a runtime's request and
 * response objects: `createStreamableHttpHandler` and the node:http handler each adapt it.
 * Internal.
 *
 * @param server - anything with `connect(transport, context)`
 * @param options - as `createStreamableHttpHandler`'s
 * @param direct - the runtime writes event streams with `attach` (node:http), not their `body`
 * @returns the core
 * @throws RangeError when a limit is out of range
 */
export function createStreamableCore(
  server: ConnectionHandler,
  options: StreamableHttpHandlerOptions = {},
  direct = false,
): StreamableCore {
  checkHttpOptions('createStreamableHttpHandler', options);
  const st = new StreamableState(server, options, direct);
  const owner: SessionOwner = {
    route: (session, text) => route(st, session, text),
    closeSession: (session, reason) => closeSession(st, session, reason),
    maxMessageBytes: st.cfg.maxMessageBytes,
    parse: st.serverParse,
  };
  st.HandlerSession = sessionClass(owner);
  st.onAnswerStreamGone = (session) => answerStreamGone(st, session);
  listenRelay(st);
  return {
    handle: (incoming) => handle(st, incoming),
    bodyTimeout: st.cfg.bodyTimeout,
    get sessions() {
      return st.sessions.size;
    },
    async close() {
      if (st.sweeper !== undefined) clearInterval(st.sweeper);
      st.sweeper = undefined;
      const all = [...st.sessions.values()];
      // A shared store keeps the sessions for the other processes.
      await Promise.all(all.map((s) => closeSession(st, s, undefined, st.so.store === undefined)));
      const listening = st.relayListening;
      st.relayListening = undefined;
      if (listening !== undefined) {
        await listening.catch(() => {});
        await st.stopRelay?.();
        st.stopRelay = undefined;
      }
    },
  };
}
