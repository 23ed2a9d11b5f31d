/**
 * A POST to a Streamable HTTP endpoint: read, parsed once, its session found or started, and the
 * exchange that waits for its answers.
 *
 * @module
 */
import { isPromiseLike } from '@jsonrpc-kit/core/engine';
import { TIMED_OUT, TOO_LARGE } from './body-failure.js';
import type { HttpContext } from './http-context.js';
import { clock, type HttpSession } from './http-session.js';
import { BODY_TIMEOUT_BODY } from './resolve-options.js';
import type { Exchange } from './session-activity.js';
import { randomId } from './session-ids.js';
import { clientFull, sessionOf, sessionsFull, storeDown } from './session-lookup.js';
import { recordOf } from './session-origin.js';
import { type Classified, classify, progressToken } from './streamable-classify.js';
import { relayAnswers } from './streamable-relay.js';
import {
  errorBody,
  isReply,
  reply,
  type StreamableIncoming,
  type StreamableReply,
} from './streamable-reply.js';
import { cancelCalls, forgetCancelled, toStream } from './streamable-route.js';
import {
  closeSession,
  openSession,
  originFor,
  releaseClientSlot,
  roomForSession,
  takeClientSlot,
} from './streamable-sessions.js';
import type { StreamableState } from './streamable-state.js';

/**
 * Whether a client takes an event stream.
 *
 * @param accept - its `Accept` header
 * @returns `true` when it names `text/event-stream` or `*\/*`
 */
export function acceptsSse(accept: string | undefined): boolean {
  return accept !== undefined && (accept.includes('text/event-stream') || accept.includes('*/*'));
}

/**
 * Serves a POST: reads and parses its body once, finds or starts its session, and answers 202 or
 * waits for the answers of its requests.
 */
export async function post(
  st: StreamableState,
  incoming: StreamableIncoming,
  ctx: HttpContext,
  cors: readonly string[],
): Promise<StreamableReply> {
  const text = await incoming.body(st.cfg.maxMessageBytes, st.cfg.bodyTimeout);
  if (text === undefined)
    return reply(400, errorBody(-32600, 'Request body could not be read'), cors);
  if (text === TOO_LARGE) {
    return { kind: 'json', status: 413, body: st.cfg.tooLargeBody, headers: cors, early: true };
  }
  if (text === TIMED_OUT) return reply(408, BODY_TIMEOUT_BODY, cors);
  const parsed = st.parseBody(text);
  const classified = classify(parsed, text, st.startMethod);
  if ('refused' in classified) return reply(400, classified.refused, cors);
  let session: HttpSession;
  let headers = cors;
  if (!st.stateful) session = openSession(st, undefined, ctx);
  else if (incoming.header(st.sessionHeader) === undefined && classified.startsSession) {
    if (!roomForSession(st)) return sessionsFull(cors);
    const origin = originFor(st, ctx);
    if (!takeClientSlot(st, origin?.client)) return clientFull(cors);
    const id = randomId();
    st.starting++;
    try {
      if (st.sessionStore !== undefined)
        await st.sessionStore.create(id, recordOf(origin), st.sessionTtl);
    } catch {
      releaseClientSlot(st, origin?.client);
      return storeDown(cors);
    } finally {
      st.starting--;
    }
    session = openSession(st, id, ctx, undefined, origin);
    headers = [...cors, st.sessionHeader, id];
  } else {
    let found = sessionOf(st, incoming, ctx, cors);
    if (isPromiseLike(found)) found = await found;
    if (isReply(found)) return found;
    session = found;
    headers = [...cors, st.sessionHeader, found.id!];
  }
  // An id can wait for its answer in one POST of a session at a time: a second would take the
  // first one's answer (a client may not reuse an id in a session). Refused whole, unread.
  const taken = classified.ids.find((id) => session.waiterOf(id) !== undefined);
  if (taken !== undefined) {
    return reply(
      400,
      errorBody(-32600, `Invalid Request: id ${taken} is already in use in this session`),
      headers,
    );
  }
  const { cancelled } = classified;
  if (cancelled.length > 0) {
    // Deliver first: a protocol that does answer a cancelled request (LSP) still can, on the
    // stream of an exchange that waits for other answers; one that waits for nothing else ends.
    queueMicrotask(() => forgetCancelled(st, session, cancelled));
  }
  if (!classified.hasRequest) {
    // Answers to requests another process sent the client go there, and cancellations of
    // requests another process runs (with a relay).
    if (!relayAnswers(st, session, text, cancelled)) session.deliver(text, parsed);
    if (session.id === undefined) void closeSession(st, session);
    return { kind: 'empty', status: 202, headers };
  }
  const streamable = st.mode !== 'json' && acceptsSse(incoming.header('accept'));
  const replied = awaitAnswers(st, session, incoming, headers, classified, streamable);
  session.deliver(text, parsed);
  return replied;
}

/**
 * The exchange of a POST that waits for answers: what it waits for, and its end when the client
 * goes away. No closure here holds the body or what was parsed of it: a large request is not
 * kept alive while its answers are worked out.
 */
export function awaitAnswers(
  st: StreamableState,
  session: HttpSession,
  incoming: StreamableIncoming,
  headers: readonly string[],
  classified: Classified,
  streamable: boolean,
): Promise<StreamableReply> {
  let respond!: (reply: StreamableReply) => void;
  const replied = new Promise<StreamableReply>((resolve) => {
    respond = resolve;
  });
  const tokens: string[] = [];
  for (const r of classified.requests) {
    const token = progressToken(r);
    if (token !== undefined) tokens.push(token);
  }
  const exchange: Exchange = {
    ids: classified.ids,
    left: 0,
    tokens,
    batch: classified.batch,
    streamable,
    older: undefined,
    newer: undefined,
    answers: undefined,
    stream: undefined,
    done: false,
    gone: false,
    respond,
    headers,
  };
  session.wait(exchange, classified.ids);
  if (streamable && st.mode === 'sse') toStream(st, exchange, session);
  incoming.onGone(() => {
    if (exchange.done) return;
    // The client went away: the session is idle from now on, whatever still runs.
    exchange.gone = true;
    session.lastActive = clock();
    // Without a store nothing can replay the answers.
    if (st.store === undefined || session.id === undefined) {
      exchange.done = true;
      // Nothing could deliver their answers: the calls still running are cancelled.
      if (session.id !== undefined) cancelCalls(session, exchange);
      session.forget(exchange);
      exchange.stream?.end();
      if (session.id === undefined) void closeSession(st, session);
    }
  });
  return replied;
}
