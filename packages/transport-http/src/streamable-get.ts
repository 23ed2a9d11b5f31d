/**
 * A GET to a Streamable HTTP endpoint: the session's own event stream, or a stream resumed after
 * `Last-Event-ID` from the event store.
 *
 * @module
 */
import type { HttpContext } from './http-context.js';
import { clock, type HttpSession } from './http-session.js';
import type { Exchange } from './session-activity.js';
import { ownsStream, streamIdOf } from './session-ids.js';
import { sessionOf } from './session-lookup.js';
import { encodeSseEvent } from './sse.js';
import { openSseStream, type SseStream } from './sse-stream.js';
import { acceptsSse } from './streamable-post.js';
import {
  errorBody,
  isReply,
  reply,
  type StreamableIncoming,
  type StreamableReply,
  sse,
} from './streamable-reply.js';
import { touchSession } from './streamable-sessions.js';
import type { StreamableState } from './streamable-state.js';

/** Serves a GET: opens the session's own stream, or resumes one after `Last-Event-ID`. */
export async function get(
  st: StreamableState,
  incoming: StreamableIncoming,
  ctx: HttpContext,
  cors: readonly string[],
): Promise<StreamableReply> {
  if (!acceptsSse(incoming.header('accept'))) {
    return reply(
      406,
      errorBody(-32000, 'Not Acceptable: Client must accept text/event-stream'),
      cors,
    );
  }
  const found = await sessionOf(st, incoming, ctx, cors);
  if (isReply(found)) return found;
  const session = found;
  const headers = [...cors, st.sessionHeader, session.id!];
  const last = incoming.header('last-event-id');
  if (last !== undefined && st.store !== undefined) {
    let backlog = '';
    let resumed!: () => void;
    const resuming = new Promise<void>((resolve) => {
      resumed = resolve;
    });
    const activity = session.activityState();
    activity.resuming = resuming;
    let streamId: string | undefined;
    try {
      streamId = await st.store.replayAfter(last, (id, message) => {
        backlog += encodeSseEvent(message, id);
      });
    } finally {
      // Push that waited goes out after the replay, on the stream put in place below.
      queueMicrotask(() => {
        if (activity.resuming === resuming) activity.resuming = undefined;
        resumed();
      });
    }
    // Another session's event (or an unknown one) is not found: nothing of it is sent.
    if (streamId === undefined || !ownsStream(session, streamId)) {
      return reply(404, errorBody(-32001, 'Event not found'), cors);
    }
    const stream = open(st, streamId, session, backlog);
    let exchange: Exchange | undefined;
    for (const e of session.exchanges?.keys() ?? [])
      if (e.stream?.streamId === streamId) exchange = e;
    if (exchange !== undefined) {
      // A request stream resumed while its requests still run: the rest goes here.
      exchange.stream!.end();
      exchange.stream = stream;
    } else if (activity.standaloneId === streamId) {
      activity.standalone?.end();
      activity.standalone = stream;
    } else stream.end();
    return sse(stream, headers);
  }
  if (session.standalone?.open === true) {
    return reply(
      409,
      errorBody(-32000, 'Conflict: Only one SSE stream is allowed per session'),
      cors,
    );
  }
  const streamId = streamIdOf(session);
  const stream = open(st, streamId, session, undefined);
  const activity = session.activityState();
  activity.standaloneId = streamId;
  activity.standalone = stream;
  // Another process continuing the session resumes this stream as the session's own.
  void touchSession(st, session, streamId);
  const backlog = activity.backlog;
  activity.backlog = undefined;
  if (backlog !== undefined) {
    for (let m = backlog.shift(); m !== undefined; m = backlog.shift()) void stream.send(m);
  }
  return sse(stream, headers);
}

/** Opens an event stream of a session with the handler's limits (`prelude`: replayed events). */
export function open(
  st: StreamableState,
  streamId: string,
  session: HttpSession,
  prelude: string | undefined,
): SseStream {
  return openSseStream({
    streamId,
    store: st.store,
    keepAlive: st.keepAlive,
    maxBufferedEvents: st.maxBuffered,
    maxBufferedBytes: st.maxBufferedBytes,
    onGone: streamGone,
    owner: session,
    prelude,
    direct: st.direct,
  });
}

/** A session's stream ended from the client's side: the session is idle from now on. */
export function streamGone(session: HttpSession): void {
  session.lastActive = clock();
}
