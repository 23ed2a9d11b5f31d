/**
 * Answers to server→client requests, and cancellations, across processes: a process that sends a
 * request to a client notes its id; a POST carrying the client's answer that lands on a process
 * which did not send the request is published on the relay, and the process that did delivers
 * it. A cancellation of a request no POST waits for on the process it reached goes the same way
 * to the process running the request.
 *
 * @module
 */
import type { HttpSession } from './http-session.js';
import { takeAnswered } from './streamable-asked.js';
import { answeredIds, classify } from './streamable-classify.js';
import { forgetCancelled } from './streamable-route.js';
import type { StreamableState } from './streamable-state.js';

export type { AnswerRelay } from './streamable-options.js';

/**
 * The relay's topic: each text is a session id, a newline, and the client's answers or
 * cancellation as posted.
 */
export const ANSWER_RELAY_TOPIC = 'streamable-http:answers';

/** Publishes a POST's text for the other processes. */
function publish(st: StreamableState, session: HttpSession, text: string): void {
  st.so
    .relay!.publishText(ANSWER_RELAY_TOPIC, `${session.id}\n${text}`)
    .catch((error: unknown) => st.cfg.onError(error));
}

/**
 * A POST of answers or notifications only (with a relay): answers of which none answers a request
 * this process sent go on the relay for the process that did; a cancellation of requests none of
 * which a POST waits for here goes on the relay too (and is delivered here as well).
 *
 * @param cancelled - the ids the POST cancels
 * @returns `true` when relayed instead of being delivered here
 */
export function relayAnswers(
  st: StreamableState,
  session: HttpSession,
  text: string,
  cancelled: readonly string[],
): boolean {
  if (st.so.relay === undefined || session.id === undefined) return false;
  if (cancelled.length > 0) {
    if (!cancelled.some((id) => session.waiterOf(id) !== undefined)) publish(st, session, text);
    return false;
  }
  let ids: string[] | undefined;
  try {
    ids = answeredIds(text);
  } catch {
    return false;
  }
  if (ids === undefined || ids.length === 0) return false;
  if (takeAnswered(session, ids) > 0) return false;
  publish(st, session, text);
  return true;
}

/** What another process relayed, for a session of this one: delivered when it belongs here. */
function relayed(st: StreamableState, session: HttpSession, text: string): void {
  let ids: string[] | undefined;
  try {
    ids = answeredIds(text);
  } catch {
    return;
  }
  if (ids !== undefined) {
    if (takeAnswered(session, ids) > 0) session.deliver(text);
    return;
  }
  const parsed = st.parseBody(text);
  const classified = classify(parsed, text, st.startMethod);
  if ('refused' in classified || classified.hasRequest) return;
  const { cancelled } = classified;
  if (!cancelled.some((id) => session.waiterOf(id) !== undefined)) return;
  queueMicrotask(() => forgetCancelled(st, session, cancelled));
  session.deliver(text, parsed);
}

/** Listens to the relay: an answer to a request this process sent goes to its session. */
export function listenRelay(st: StreamableState): void {
  const relay = st.so.relay;
  if (relay === undefined) return;
  st.relayListening = relay
    .subscribeText(ANSWER_RELAY_TOPIC, (message) => {
      const cut = message.indexOf('\n');
      if (cut === -1) return;
      const session = st.sessions.get(message.slice(0, cut));
      if (session === undefined || session.closed) return;
      relayed(st, session, message.slice(cut + 1));
    })
    .then((stop) => {
      st.stopRelay = stop;
    });
  // A relay that fails to listen is reported when a request waits for it.
  st.relayListening.catch(() => {});
}
