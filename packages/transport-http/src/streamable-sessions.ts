/**
 * The sessions of one Streamable HTTP handler on this process: opening and closing them, the caps
 * (`maxSessions`, `maxSessionsPerClient`), and the sweep that closes those past their idle timeout.
 *
 * @module
 */
import type { HttpContext } from './http-context.js';
import { CLOSED_HANDLER, clock, type HttpSession } from './http-session.js';
import type { SessionOrigin } from './session-origin.js';
import type { StreamableState } from './streamable-state.js';

/**
 * The origin of a session a request would open: its client and principal.
 *
 * @param st - the handler
 * @param ctx - the request's context
 * @returns the origin record, or `undefined` when it names neither
 */
export function originFor(st: StreamableState, ctx: HttpContext): SessionOrigin | undefined {
  return st.originOf(st.clientKey?.(ctx), st.principalOf?.(ctx.auth));
}

/**
 * Whether a session is past its idle timeout here: no request of its client for that long and
 * none of its requests or streams open on the client's side. Handlers still running do not keep
 * it: closing it aborts them (their `ctx.signal`).
 */
export function expired(st: StreamableState, session: HttpSession, now: number): boolean {
  return st.idleTimeout > 0 && now - session.lastActive > st.idleTimeout && !session.connected;
}

/** Closes the sessions past their idle timeout here, and keeps those still connected alive in the store. */
export function sweep(st: StreamableState): void {
  const now = clock();
  for (const session of st.sessions.values()) {
    if (session.connected) {
      void touchSession(st, session);
      continue;
    }
    // Idle here: this process lets go of it; the store expires it unless another serves it.
    if (expired(st, session, now)) void closeSession(st, session, undefined, false);
  }
}

/** Keeps a session alive in the store; with its stream's id, its record is written again. */
export async function touchSession(
  st: StreamableState,
  session: HttpSession,
  streamId?: string,
): Promise<void> {
  if (st.sessionStore === undefined || session.id === undefined) return;
  const principal = session.origin?.principal;
  try {
    await st.sessionStore.touch(
      session.id,
      st.sessionTtl,
      streamId === undefined
        ? undefined
        : principal === undefined
          ? { streamId }
          : { streamId, principal },
    );
  } catch {
    // the store is down: the session lives here until it comes back
  }
}

/** Starts the expiry sweep, once, when sessions expire at all (one unref'd timer per handler). */
export function startSweeper(st: StreamableState): void {
  if (st.sweeper !== undefined || st.idleTimeout <= 0) return;
  st.sweeper = setInterval(sweep, Math.min(st.idleTimeout, 60_000), st);
  (st.sweeper as { unref?: () => void }).unref?.();
}

/** Closes a session here; `forget` also removes it from the store (it ends everywhere). */
export async function closeSession(
  st: StreamableState,
  session: HttpSession,
  reason?: unknown,
  forget = true,
): Promise<void> {
  if (session.closed) return;
  const handler = session.handler;
  session.handler = CLOSED_HANDLER;
  if (session.id !== undefined) {
    st.sessions.delete(session.id);
    releaseClientSlot(st, session.origin?.client);
    if (forget && st.sessionStore !== undefined)
      await Promise.resolve(st.sessionStore.delete(session.id)).catch(() => undefined);
  }
  session.standalone?.end();
  const exchanges = session.exchanges;
  session.exchanges = undefined;
  for (const exchange of exchanges?.keys() ?? []) {
    exchange.done = true;
    exchange.stream?.end();
    if (exchange.stream === undefined)
      exchange.respond({ kind: 'empty', status: 204, headers: [] });
  }
  handler?.onClose(reason instanceof Error ? reason : undefined);
}

/**
 * Opens a session; one with an id goes into the table, counted against the client of `origin`
 * (its slot already taken).
 */
export function openSession(
  st: StreamableState,
  id: string | undefined,
  ctx: HttpContext,
  streamId?: string | undefined,
  origin?: SessionOrigin | undefined,
): HttpSession {
  const session = new st.HandlerSession(id, streamId, origin);
  if (id !== undefined) {
    st.sessions.set(id, session);
    startSweeper(st);
  }
  // The session outlives the POST that started it: its context keeps what its calls may read
  // of that request (headers about the caller, address, auth), not its framing or signal.
  // With a shared store, handlers may keep what they know of the session's client under its id.
  const facts = st.factsOf(ctx);
  st.server.connect(
    session,
    id !== undefined && st.sessionStore !== undefined
      ? Object.freeze({ ...facts, sessionId: id })
      : facts,
  );
  return session;
}

/** Sweeps out sessions past their idle timeout, at most once a second. */
export function sweepWhenFull(st: StreamableState): void {
  const now = clock();
  if (now - st.sweptWhenFull >= 1000) {
    st.sweptWhenFull = now;
    sweep(st);
  }
}

/** Whether a session may start: when full, sessions past their idle timeout go first. */
export function roomForSession(st: StreamableState): boolean {
  if (st.sessions.size + st.starting < st.maxSessions) return true;
  sweepWhenFull(st);
  return st.sessions.size + st.starting < st.maxSessions;
}

/**
 * Counts a session against its client: `false` (nothing counted) when the client holds its
 * share already, after sessions past their idle timeout are closed.
 */
export function takeClientSlot(st: StreamableState, client: string | undefined): boolean {
  if (client === undefined) return true;
  let held = st.perClient.get(client) ?? 0;
  if (held >= st.maxPerClient) {
    sweepWhenFull(st);
    held = st.perClient.get(client) ?? 0;
    if (held >= st.maxPerClient) return false;
  }
  st.perClient.set(client, held + 1);
  return true;
}

/** A session counted against its client is gone (or never opened). */
export function releaseClientSlot(st: StreamableState, client: string | undefined): void {
  if (client === undefined) return;
  const held = (st.perClient.get(client) ?? 1) - 1;
  if (held <= 0) st.perClient.delete(client);
  else st.perClient.set(client, held);
}
