/**
 * The `authenticate` hook of a Streamable HTTP handler, and a DELETE, which ends the session it
 * names.
 *
 * @module
 */
import type { HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { rejectionOf } from './resolve-options.js';
import { sessionOf } from './session-lookup.js';
import {
  isReply,
  reply,
  type StreamableIncoming,
  type StreamableReply,
} from './streamable-reply.js';
import { closeSession } from './streamable-sessions.js';
import type { StreamableState } from './streamable-state.js';

/** Runs the `authenticate` hook (there is one): the context with its `auth`, or the refusal. */
export async function admit(
  st: StreamableState,
  ctx: HttpContext,
  cors: readonly string[],
): Promise<HttpContext | StreamableReply> {
  let auth: unknown;
  try {
    auth = await st.cfg.authenticate!(ctx);
  } catch (error) {
    return rejection(st, error, cors);
  }
  if (auth instanceof HttpError) return rejection(st, auth, cors);
  ctx.auth = auth;
  return ctx;
}

/** The answer to a request `authenticate` refused. */
export function rejection(
  st: StreamableState,
  error: unknown,
  cors: readonly string[],
): StreamableReply {
  const r = rejectionOf(error, st.cfg.onError);
  return reply(r.status, r.body, [...cors, ...r.headers]);
}

/** DELETE: ends the session it names. */
export async function endSession(
  st: StreamableState,
  incoming: StreamableIncoming,
  ctx: HttpContext,
  cors: readonly string[],
): Promise<StreamableReply> {
  const found = await sessionOf(st, incoming, ctx, cors);
  if (isReply(found)) return found;
  await closeSession(st, found);
  return { kind: 'empty', status: 200, headers: cors };
}
