/**
 * How a session's sends wait: those asked for before its transport started wait in a table
 * beside the sessions, in call order; a send nobody waits on (an answer, a notice) is watched by
 * one handler for every session, which reports its failure.
 *
 * @module
 */
import { ConnectionClosedError } from './errors.js';
import type { JsonRpcId } from './messages.js';
import { type SendWatch, watchSends } from './send-watch.js';
import type { SessionOptions } from './session-types.js';
import { toError } from './to-error.js';

/** The promise of a start that has resolved, and of a session closed before anyone asked. */
export const DONE: Promise<void> = Promise.resolve();

/**
 * A session's start while sends wait for it: the promise they follow (so each runs in its
 * caller's async context, in call order), how many still wait, and whether the start resolved.
 */
export interface StartWait {
  promise: Promise<void>;
  waiting: number;
  resolved: boolean;
}

/**
 * The starts of the sessions whose sends do not go straight to their transports yet: a table
 * beside the sessions, since a session needs its entry for a moment at most.
 */
export const startWaits: WeakMap<object, StartWait> = new WeakMap();

/** A session's entry in {@link startWaits}, made now if it had none. */
export function startWaitOf(session: object): StartWait {
  let wait = startWaits.get(session);
  if (wait === undefined)
    startWaits.set(session, (wait = { promise: DONE, waiting: 0, resolved: false }));
  return wait;
}

/** What a detached send is about: the call it answers or makes. */
export type SendAbout = { readonly method: string; readonly id?: JsonRpcId };

/** Reports a detached send that failed; the session goes on (the transport closes if it must). */
function reportDetachedFailure(
  error: unknown,
  options: SessionOptions,
  about: SendAbout | undefined,
): void {
  const level = error instanceof ConnectionClosedError ? 'debug' : 'warn';
  options.report(
    toError(error),
    about === undefined
      ? { kind: 'send-failed', level }
      : about.id === undefined
        ? { kind: 'send-failed', level, method: about.method }
        : { kind: 'send-failed', level, method: about.method, id: about.id },
  );
}

/**
 * The watch of every session's detached sends (answers, notices): one for all, so that a session
 * holds nothing for it; each send carries its session's options.
 */
export const watchDetached: SendWatch<SessionOptions, SendAbout | undefined> =
  watchSends(reportDetachedFailure);
