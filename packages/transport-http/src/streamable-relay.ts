/**
 * Answers to server→client requests across processes: a process that sends a request to a
 * client notes its id; a POST carrying the client's answer that lands on a process which did not
 * send the request is published on the relay, and the process that did delivers it.
 *
 * @module
 */
import { scanEnvelope, scanHead } from '@jsonrpc-kit/core/engine';
import type { HttpSession } from './http-session.js';
import { answeredIds } from './streamable-classify.js';
import type { StreamableState } from './streamable-state.js';

/**
 * Carries text between the processes of one endpoint: the shape of the server's
 * `SubscriptionFanout` (`createRedisFanout()` of `@jsonrpc-kit/redis` has it).
 */
export interface AnswerRelay {
  /**
   * Sends a text to every process listening to `topic`.
   *
   * @param topic - the topic
   * @param text - the text
   * @returns resolves once the relay took it
   */
  publishText(topic: string, text: string): Promise<void>;
  /**
   * Listens to `topic`.
   *
   * @param topic - the topic
   * @param listener - receives each text
   * @returns resolves, once texts published from now on are sure to arrive, to a function that
   *   stops listening
   */
  subscribeText(topic: string, listener: (text: string) => void): Promise<() => Promise<void>>;
}

/** The relay's topic: each text is a session id, a newline, and the client's answer as posted. */
export const ANSWER_RELAY_TOPIC = 'streamable-http:answers';

/** The ids (JSON text) of the requests each session sent its client on this process, unanswered. */
const askedOf = new WeakMap<HttpSession, Set<string>>();

/**
 * Notes a request the server sends a client on this process (with a relay only), so that the
 * client's answer finds its way back here from whichever process it reaches.
 *
 * @returns resolves once this process listens to the relay
 */
export function noteAsked(
  st: StreamableState,
  session: HttpSession,
  text: string,
): Promise<void> | undefined {
  if (st.relayListening === undefined || session.id === undefined) return undefined;
  let envelope: ReturnType<typeof scanEnvelope>;
  try {
    envelope = scanHead(text) ?? scanEnvelope(text);
  } catch {
    return undefined;
  }
  if (envelope.kind !== 'request') return undefined;
  let asked = askedOf.get(session);
  if (asked === undefined) askedOf.set(session, (asked = new Set()));
  asked.add(envelope.rawId ?? JSON.stringify(envelope.id));
  return st.relayListening;
}

/** The answers in `text` the session sent requests for on this process (and forgets them). */
function takeAnswered(session: HttpSession, ids: readonly string[]): number {
  const asked = askedOf.get(session);
  if (asked === undefined) return 0;
  let found = 0;
  for (const id of ids) if (asked.delete(id)) found++;
  if (asked.size === 0) askedOf.delete(session);
  return found;
}

/**
 * A POST of answers only: when none of them answers a request this process sent, they go on the
 * relay for the process that did.
 *
 * @returns `true` when relayed (not to be delivered here)
 */
export function relayAnswers(st: StreamableState, session: HttpSession, text: string): boolean {
  const relay = st.so.relay;
  if (relay === undefined || session.id === undefined) return false;
  let ids: string[] | undefined;
  try {
    ids = answeredIds(text);
  } catch {
    return false;
  }
  if (ids === undefined || ids.length === 0) return false;
  if (takeAnswered(session, ids) > 0) return false;
  relay.publishText(ANSWER_RELAY_TOPIC, `${session.id}\n${text}`).catch((error: unknown) => {
    st.cfg.onError(error);
  });
  return true;
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
      const text = message.slice(cut + 1);
      let ids: string[] | undefined;
      try {
        ids = answeredIds(text);
      } catch {
        return;
      }
      if (ids !== undefined && takeAnswered(session, ids) > 0) session.deliver(text);
    })
    .then((stop) => {
      st.stopRelay = stop;
    });
  // A relay that fails to listen is reported when a request waits for it.
  st.relayListening.catch(() => {});
}
