/**
 * The Streamable HTTP client's event streams beyond a POST's answer: the session's GET stream
 * (server push not tied to a request), opened while wanted, and the resumption of any stream
 * that dropped, with `Last-Event-ID` and reconnection per core's backoff shape.
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';
import { backoffDelay } from '@jsonrpc-kit/core/engine';
import { takeAnswered } from './expects-answer.js';
import { overLimit, readEvents } from './sse-reader.js';
import type { StreamableClientState } from './streamable-client-state.js';

/** Milliseconds an event stream must stay open to count as a success for reconnection. */
const STREAM_LIVED = 1000;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Opens (or resumes) a GET stream; retries with backoff while it drops. The server's SSE
 * `retry` (given as `retryMs`, or sent on the stream) replaces `delay` as the wait
 * before reconnecting, and a resumed answer stream waits it before its first attempt.
 *
 * @param state - the transport
 * @param lastEventId - the id of the last event the stream brought, if any
 * @param onId - called with each event's id
 * @param keepOpen - while not aborted, a stream that ends is opened again (the GET stream)
 * @param stop - ends the attempts (an answer stream's send gave up)
 * @param retryMs - the server's `retry`, from the stream that dropped
 * @param owed - the ids a resumed answer stream still owes answers to: it ends once they came
 * @returns resolves when the stream is done with
 */
export async function resume(
  state: StreamableClientState,
  lastEventId: string | undefined,
  onId: (id: string) => void,
  keepOpen: AbortSignal | undefined,
  stop?: AbortSignal,
  retryMs?: number,
  owed?: Set<string>,
): Promise<void> {
  const doFetch = state.doFetch;
  let attempt = 0;
  let base = retryMs ?? state.reconnect.delay;
  /** Set once a stream came and went (or a server said when to come back): wait `base`. */
  let again = retryMs !== undefined;
  let last = lastEventId;
  const until = keepOpen ?? stop;
  const signal =
    until === undefined
      ? state.closer.signal
      : AbortSignal.any(
          keepOpen === undefined || stop === undefined
            ? [state.closer.signal, until]
            : [state.closer.signal, keepOpen, stop],
        );
  while (!state.closed && attempt <= state.reconnect.maxAttempts) {
    if (attempt > 0)
      await sleep(backoffDelay(attempt, { ...state.reconnect, delay: base }), signal);
    else if (again) await sleep(base, signal);
    if (state.closed || state.sessionId === undefined || signal.aborted) return;
    attempt++;
    let response: Response;
    try {
      const extra: Record<string, string> = { accept: 'text/event-stream' };
      if (last !== undefined) extra['last-event-id'] = last;
      response = await doFetch(state.url, {
        method: 'GET',
        headers: await state.headers(extra),
        signal,
      });
    } catch (error) {
      if (state.closed || signal.aborted) return;
      state.report(new TransportError('HTTP event stream failed', { cause: error }));
      continue;
    }
    if (response.status === 405) {
      state.getStream = 'unsupported';
      return;
    }
    if (response.status === 404) {
      await response.body?.cancel();
      state.lose(
        new TransportError('HTTP 404 on the event stream: session expired', { status: 404 }),
        true,
      );
      return;
    }
    if (!response.ok || response.body === null) {
      state.report(
        new TransportError(`HTTP ${response.status} on the event stream`, {
          status: response.status,
        }),
      );
      continue;
    }
    const opened = Date.now();
    let received = false;
    const end = await readEvents(
      response.body,
      state.maxMessageBytes,
      (id) => {
        received = true;
        last = id;
        onId(id);
      },
      (data) => {
        if (owed !== undefined && owed.size > 0) takeAnswered(owed, data);
        state.deliver(data);
      },
      owed === undefined ? undefined : () => owed.size === 0,
      (ms) => (base = ms),
    );
    if (end === 'settled') return;
    if (end === 'too-large') {
      // A failed attempt, whatever it carried before: the same event may come again.
      state.report(overLimit('HTTP event stream', state.maxMessageBytes));
      continue;
    }
    if ((end === 'ended' && keepOpen === undefined) || signal.aborted) return;
    // A stream that carried something, or stayed open a while, was a success: the next
    // reconnection starts over. One that ended at once counts as a failed attempt, so a server
    // that keeps ending it is not asked again in a tight loop.
    // It still waits `delay` before the next: a server that ends every stream after an
    // event is not asked again in a tight loop either.
    if (received || Date.now() - opened >= STREAM_LIVED) {
      attempt = 0;
      again = true;
    }
  }
  if (!state.closed && attempt > state.reconnect.maxAttempts)
    state.report(new TransportError('HTTP event stream: gave up reconnecting'));
}

/**
 * Opens the session's GET stream, unless it is open or opening (or the server offers none).
 *
 * @param state - the transport
 * @returns resolves once the stream is done with
 */
export async function openGetStream(state: StreamableClientState): Promise<void> {
  if (state.getStream !== 'off') return;
  state.getStream = 'opening';
  const abort = new AbortController();
  state.getAbort = abort;
  await resume(state, state.getLastEventId, (id) => (state.getLastEventId = id), abort.signal);
  if (state.getAbort === abort) state.getAbort = undefined;
  if (state.getStream !== 'opening') return;
  state.getStream = 'off';
  // Closed as no longer wanted, then wanted again before it finished closing: open it anew.
  if (abort.signal.aborted && !state.closed && state.wanted() && state.sessionId !== undefined) {
    void openGetStream(state);
  }
}
