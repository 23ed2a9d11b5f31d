/**
 * Where each message the server sends on a Streamable HTTP session goes: an answer to the POST
 * that waits for it (JSON, or its event stream), push to the session's GET stream, anything else
 * to the POST it belongs to; and the cancellation of a POST's calls when its client went away.
 *
 * @module
 */
import { type Profile, TransportError } from '@jsonrpc-kit/core';
import { FifoQueue, scanEnvelope, scanHead } from '@jsonrpc-kit/core/engine';
import { batchMembers } from './batch-members.js';
import type { HttpSession } from './http-session.js';
import { clock } from './http-session.js';
import type { Exchange } from './session-activity.js';
import { streamIdOf } from './session-ids.js';
import { openSseStream, type SseStream } from './sse-stream.js';
import { noteAsked } from './streamable-asked.js';
import { answeredIds, tokenOf } from './streamable-classify.js';
import { reply, sse } from './streamable-reply.js';
import { closeSession } from './streamable-sessions.js';
import type { StreamableState } from './streamable-state.js';

/** A send that is done. */
const SENT: Promise<void> = Promise.resolve();

/** Where a request's id goes in a cancel notice built from the protocol's params. */
const ID_MARK = '\u0000id\u0000';
/** {@link ID_MARK} as JSON writes it. */
const ID_MARK_JSON = JSON.stringify(ID_MARK);

/** Milliseconds an exchange still waits for the answer to a cancelled request. */
const CANCEL_GRACE = 100;

/**
 * Why a request to the client failed: no stream was there to carry it (answers are JSON, or the
 * client did not take an event stream, and it has no GET stream open).
 */
const NO_STREAM =
  'No event stream to send this request to the client on: it takes no answer stream and has no GET stream open';

/** A POST got its last answer (or gave up waiting): its JSON answer, its 202, or its stream's end. */
export function finishExchange(
  st: StreamableState,
  session: HttpSession,
  exchange: Exchange,
): void {
  exchange.done = true;
  session.forget(exchange);
  session.lastActive = clock();
  if (exchange.stream !== undefined) exchange.stream.end();
  else if (exchange.answers === undefined) {
    exchange.respond({ kind: 'empty', status: 202, headers: exchange.headers });
  } else {
    const answers = exchange.answers;
    const body =
      answers.length === 1 && (!exchange.batch || answers[0]!.trimStart().startsWith('['))
        ? answers[0]!
        : `[${answers.map((a) => (a.trimStart().startsWith('[') ? a.trim().slice(1, -1) : a)).join(',')}]`;
    exchange.respond(reply(200, body, exchange.headers));
  }
  // A stateless session ends with its POST; not inside the server's `send` of the last answer.
  if (session.id === undefined) queueMicrotask(() => void closeSession(st, session));
}

/** An answer stream's client went away. */
export function answerStreamGone(st: StreamableState, session: HttpSession): void {
  // Without a store, nothing could replay the answers: stop what the client started.
  if (st.store === undefined && session.id === undefined) void closeSession(st, session);
}

/** Switches a POST to an event-stream answer (once), its answers so far sent first. */
export function toStream(st: StreamableState, exchange: Exchange, session: HttpSession): SseStream {
  if (exchange.stream !== undefined) return exchange.stream;
  const stream = openSseStream({
    streamId: streamIdOf(session),
    store: st.store,
    keepAlive: st.keepAlive,
    maxBufferedEvents: st.maxBuffered,
    maxBufferedBytes: st.maxBufferedBytes,
    onGone: st.onAnswerStreamGone,
    owner: session,
    direct: st.direct,
  });
  exchange.stream = stream;
  exchange.respond(sse(stream, exchange.headers));
  const answers = exchange.answers;
  exchange.answers = undefined;
  for (const answer of answers ?? []) void stream.send(answer);
  return stream;
}

/** Routes one message the server sends on a session. */
export function route(st: StreamableState, session: HttpSession, text: string): Promise<void> {
  let ids: string[] | undefined;
  try {
    ids = answeredIds(text);
  } catch {
    ids = undefined;
  }
  if (ids !== undefined) {
    const exchange = session.waiterOfAny(ids);
    if (exchange === undefined) return sendStandalone(st, session, text, false);
    session.answered(exchange, ids);
    if (exchange.stream === undefined) {
      // A JSON answer: kept until the exchange's last one, then written at once.
      if (exchange.answers === undefined) exchange.answers = [text];
      else exchange.answers.push(text);
      if (exchange.left === 0) finishExchange(st, session, exchange);
      return SENT;
    }
    let sent = SENT;
    // One event per message: MCP clients read one message per event.
    if (text.trimStart().startsWith('[')) {
      // Cut from the text, not re-serialized: ids beyond 2^53 keep their digits.
      for (const member of batchMembers(text)) sent = exchange.stream.send(member);
    } else sent = exchange.stream.send(text);
    if (exchange.left === 0) return sent.then(() => finishExchange(st, session, exchange));
    return sent;
  }
  // Push not tied to any request (a subscription item) goes on the session's own stream.
  if (st.pushMethods.size > 0) {
    const method = (scanHead(text) ?? scanEnvelope(text)).method;
    if (method !== undefined && st.pushMethods.has(method))
      return sendStandalone(st, session, text, true);
  }
  // A request to the client, with a relay: noted, so that its answer comes back here from any
  // process; sent once this process listens to the relay.
  const listening = noteAsked(st, session, text);
  if (listening !== undefined) return listening.then(() => sendTied(st, session, text));
  return sendTied(st, session, text);
}

/**
 * Sends what is neither an answer nor push: on the stream of the exchange whose progress token it
 * names, else of the newest exchange still open, else on the session's own stream.
 */
function sendTied(st: StreamableState, session: HttpSession, text: string): Promise<void> {
  const target = session.carrierOf(text.includes('progressToken') ? tokenOf(text) : undefined);
  if (target !== undefined) return toStream(st, target, session).send(text);
  return sendStandalone(st, session, text, false);
}

/**
 * Cancels the calls of a POST that still wait for their answers, as the client would: with the
 * cancel notice of the server's protocol (its session's profile), so their `ctx.signal` aborts.
 */
export function cancelCalls(session: HttpSession, exchange: Exchange): void {
  const cancellation = (session.handler as { readonly profile?: Profile<unknown> } | undefined)
    ?.profile?.cancellation;
  if (cancellation === undefined) return;
  const method = JSON.stringify(cancellation.method);
  // The id goes in as its exact text (ids beyond 2^53 keep their digits).
  const template = JSON.stringify(cancellation.toParams(ID_MARK));
  for (const id of exchange.ids) {
    if (session.waiterOf(id) !== exchange) continue;
    const params = template.replace(ID_MARK_JSON, () => id);
    session.deliver(`{"jsonrpc":"2.0","method":${method},"params":${params}}`);
  }
}

/** Stops waiting for answers to cancelled requests, after a grace period for those answered. */
export function forgetCancelled(
  st: StreamableState,
  session: HttpSession,
  ids: readonly string[],
): void {
  setTimeout(() => {
    for (const id of ids) {
      const exchange = session.waiterOf(id);
      if (exchange === undefined) continue;
      session.answered(exchange, [id]);
      if (exchange.left === 0 && !exchange.done) finishExchange(st, session, exchange);
    }
  }, CANCEL_GRACE);
}

/**
 * Sends on the session's GET stream. While it has never been open, push (subscription items)
 * waits for it, bounded, and anything else is dropped, as MCP allows, but for a request to the
 * client: its send fails (see {@link NO_STREAM}).
 */
export async function sendStandalone(
  st: StreamableState,
  session: HttpSession,
  text: string,
  push: boolean,
): Promise<void> {
  const activity = session.activity;
  if (activity?.resuming !== undefined) await activity.resuming;
  const stream = activity?.standalone;
  if (stream?.open === true) return stream.send(text);
  const standaloneId = activity?.standaloneId;
  if (st.store !== undefined && standaloneId !== undefined) {
    // The stream dropped (or is open on another process): stored, so that the client's
    // `Last-Event-ID` reconnection gets it.
    await st.store.append(standaloneId, text);
    return;
  }
  if (!push) {
    // A request sent nowhere would wait for an answer forever: its call fails now instead.
    if ((scanHead(text) ?? scanEnvelope(text)).kind === 'request')
      throw new TransportError(NO_STREAM);
    return;
  }
  // Not opened yet: kept for the first GET, the oldest dropped past the bound.
  const backlog = (session.activityState().backlog ??= new FifoQueue());
  if (backlog.length >= st.maxBuffered) backlog.shift();
  backlog.push(text);
}
