/**
 * Who opened a Streamable HTTP session: the client it counts against and the principal it is
 * bound to, kept as one frozen record for sessions opened alike.
 *
 * @module
 */

import { flat } from './session-facts.js';
import type { SessionRecord } from './session-store.js';

/**
 * Who opened a session: the client it counts against (`maxSessionsPerClient`). Frozen, and one
 * record for every session in a row opened alike, so a session keeps one reference.
 */
export interface SessionOrigin {
  readonly client: string | undefined;
  /** The principal it is bound to (with `authenticate`), if any. */
  readonly principal: string | undefined;
}

/**
 * Keeps one {@link SessionOrigin} for sessions opened alike in a row.
 *
 * @returns the keeper of one handler: a client and principal in, their record out (`undefined`
 *   for neither)
 */
export function keepOrigins(): (
  client: string | undefined,
  principal: string | undefined,
) => SessionOrigin | undefined {
  let last: SessionOrigin | undefined;
  return (client, principal) => {
    if (client === undefined && principal === undefined) return undefined;
    if (last !== undefined && last.client === client && last.principal === principal) return last;
    last = Object.freeze({
      client: client === undefined ? undefined : flat(client),
      principal: principal === undefined ? undefined : flat(principal),
    });
    return last;
  };
}

/**
 * The default principal of an auth value (see `StreamableSessionOptions.principalOf`).
 *
 * @param auth - what `authenticate` returned
 * @returns its principal, or `undefined` for none
 * @throws TypeError when the value has no subject and no JSON text (a cycle, a `BigInt`)
 */
export function defaultPrincipalOf(auth: unknown): string | undefined {
  if (auth === undefined || auth === null) return undefined;
  if (typeof auth === 'string') return auth;
  if (typeof auth === 'number') return String(auth);
  if (typeof auth === 'object') {
    const { sub, subject } = auth as { sub?: unknown; subject?: unknown };
    const id = sub ?? subject;
    if (typeof id === 'string') return id;
    if (typeof id === 'number') return String(id);
  }
  try {
    return JSON.stringify(auth);
  } catch (error) {
    throw new TypeError(
      'The auth value has no subject and no JSON text: give sessions.principalOf',
      { cause: error },
    );
  }
}

/** The record of a session that has no stream yet and no principal: one for all of them. */
const NO_RECORD: SessionRecord = Object.freeze({});

/** The first record of a session: its principal, if it is bound to one. */
export function recordOf(origin: SessionOrigin | undefined): SessionRecord {
  const principal = origin?.principal;
  return principal === undefined ? NO_RECORD : { principal };
}
