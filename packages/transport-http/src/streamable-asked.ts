/**
 * The requests each Streamable HTTP session sent its client on this process and still waits
 * answers to, noted only when the handler has a relay (`sessions.relay`): the answer relay
 * (`streamable-relay.ts`) reads them to tell an answer for this process from one for another.
 *
 * @module
 */
import { scanEnvelope, scanHead } from '@jsonrpc-kit/core/engine';
import type { HttpSession } from './http-session.js';
import type { StreamableState } from './streamable-state.js';

/**
 * The most unanswered requests noted per session: past it the oldest is forgotten (a request
 * whose answer never came, timed out long ago), so a session that asks much keeps a bounded set.
 */
const MAX_ASKED = 1024;

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
  if (asked.size > MAX_ASKED) asked.delete(asked.values().next().value!);
  return st.relayListening;
}

/** The answers in `text` the session sent requests for on this process (and forgets them). */
export function takeAnswered(session: HttpSession, ids: readonly string[]): number {
  const asked = askedOf.get(session);
  if (asked === undefined) return 0;
  let found = 0;
  for (const id of ids) if (asked.delete(id)) found++;
  if (asked.size === 0) askedOf.delete(session);
  return found;
}
