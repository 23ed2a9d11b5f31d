/**
 * The session a request names: this process's, or one the session store knows, continued here
 * with this process's own `server.connect()`; and the answers for the sessions that cannot be had.
 *
 * @module
 */
import type { HttpContext } from './http-context.js';
import { clock, type HttpSession } from './http-session.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { SESSIONS_FULL_RETRY_AFTER } from './streamable-options.js';
import {
  errorBody,
  reply,
  type StreamableIncoming,
  type StreamableReply,
} from './streamable-reply.js';
import {
  closeSession,
  expired,
  openSession,
  originFor,
  roomForSession,
  takeClientSlot,
} from './streamable-sessions.js';
import type { StreamableState } from './streamable-state.js';

/** The answer when a client holds its share of the sessions already. */
export function clientFull(cors: readonly string[]): StreamableReply {
  return reply(503, errorBody(-32000, 'Service Unavailable: too many sessions from this client'), [
    ...cors,
    'retry-after',
    String(SESSIONS_FULL_RETRY_AFTER),
  ]);
}

/** The answer when this process has no room for another session. */
export function sessionsFull(cors: readonly string[]): StreamableReply {
  return reply(503, errorBody(-32000, 'Service Unavailable: too many sessions'), [
    ...cors,
    'retry-after',
    String(SESSIONS_FULL_RETRY_AFTER),
  ]);
}

/** The answer for a session that is unknown, ended or expired. */
export function notFound(cors: readonly string[]): StreamableReply {
  return reply(404, errorBody(-32001, 'Session not found'), cors);
}

/** The answer when the session store cannot be reached. */
export function storeDown(cors: readonly string[]): StreamableReply {
  return reply(503, errorBody(-32000, 'Service Unavailable: session store'), cors);
}

/**
 * The session a request names: this process's, or one the store knows (continued here). Without
 * a store the answer is at hand, not a promise.
 */
export function sessionOf(
  st: StreamableState,
  incoming: StreamableIncoming,
  ctx: HttpContext,
  cors: readonly string[],
): HttpSession | StreamableReply | Promise<HttpSession | StreamableReply> {
  const id = incoming.header(st.sessionHeader);
  if (id === undefined) {
    return reply(
      400,
      errorBody(-32000, `Bad Request: ${st.sessionHeader} header is required`),
      cors,
    );
  }
  const session = st.sessions.get(id);
  if (st.sessionStore !== undefined)
    return storedSessionOf(st, st.sessionStore, id, session, ctx, cors);
  // This process's sessions only: known and not past its idle timeout, or not found.
  if (session === undefined || session.closed) return notFound(cors);
  // Bound to another principal: as unknown, and not kept alive by this request.
  if (st.principalOf !== undefined && session.origin?.principal !== st.principalOf(ctx.auth)) {
    return notFound(cors);
  }
  const now = clock();
  if (expired(st, session, now)) {
    void closeSession(st, session);
    return notFound(cors);
  }
  session.lastActive = now;
  return session;
}

/** {@link sessionOf} with a session store: the store says whether the session lives. */
export async function storedSessionOf(
  st: StreamableState,
  records: SessionStore,
  id: string,
  local: HttpSession | undefined,
  ctx: HttpContext,
  cors: readonly string[],
): Promise<HttpSession | StreamableReply> {
  let session = local;
  const record: SessionRecord | undefined | null = await Promise.resolve(
    records.lookup(id, st.sessionTtl),
  ).catch(
    // The store is down: this process's sessions go on; others cannot be told from unknown ones.
    () => (session === undefined ? null : {}),
  );
  if (record === null) {
    return storeDown(cors);
  }
  if (record === undefined) {
    // Ended or expired (possibly on another process).
    if (session !== undefined) void closeSession(st, session, undefined, false);
    return notFound(cors);
  }
  // Another request of the session may have continued it here while this one looked it up.
  session = st.sessions.get(id);
  if (session === undefined || session.closed) {
    const origin = originFor(st, ctx);
    // Bound to another principal (the store's record says which): as unknown.
    if (st.principalOf !== undefined && record.principal !== origin?.principal) {
      return notFound(cors);
    }
    // Continued here: it counts against this process's caps like a session started here.
    if (!roomForSession(st)) return sessionsFull(cors);
    if (!takeClientSlot(st, origin?.client)) return clientFull(cors);
    session = openSession(st, id, ctx, record.streamId, origin);
  } else if (
    st.principalOf !== undefined &&
    session.origin?.principal !== st.principalOf(ctx.auth)
  ) {
    return notFound(cors);
  } else if (record.streamId !== undefined && session.standalone?.open !== true) {
    // Another process may have opened the session's stream since: resume that one as its own.
    session.activityState().standaloneId = record.streamId;
  }
  session.lastActive = clock();
  return session;
}
