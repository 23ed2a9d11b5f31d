/**
 * The Streamable HTTP client's POST exchange: one message out per POST, with the session id
 * (a POST that starts the session goes alone), and its answer in, as JSON or as an event stream
 * read event by event (resumed with a GET when it drops before its answers). A send settles once
 * its requests were answered, or fails when nothing could answer them any more.
 *
 * @module
 */
import { AbortError, ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';
import { readAnswerText } from './answer-body.js';
import {
  expectsAnswer,
  missingAnswer,
  owedIds,
  takeAnswered,
  unansweredWords,
} from './expects-answer.js';
import { failureText } from './failure-text.js';
import { overLimit, readEvents } from './sse-reader.js';
import { openGetStream, resume } from './streamable-client-get.js';
import type { StreamableClientState } from './streamable-client-state.js';

/** Keeps the session id an answer brings, and opens the GET stream if it is wanted. */
function learnSession(state: StreamableClientState, response: Response): void {
  const id = response.headers.get(state.sessionHeader);
  if (id !== null && id !== state.sessionId) {
    state.sessionId = id;
    if (state.getStream === 'off' && state.wanted()) void openGetStream(state);
  }
}

/** After `initialize`, keeps the protocol version the server chose. */
function watchInitialize(state: StreamableClientState, sent: string, answer: string): void {
  if (!sent.includes('"initialize"')) return;
  try {
    const value = JSON.parse(answer) as { result?: { protocolVersion?: unknown } };
    const version = value.result?.protocolVersion;
    if (typeof version === 'string') state.protocolVersion = version;
  } catch {
    // not an initialize answer
  }
}

/**
 * Sends one message in a POST and reads its answer: what `send()` of the transport does once it
 * is open.
 *
 * @param state - the transport
 * @param text - the message
 * @param signal - the send's signal
 * @returns resolves once the answer was delivered (for an event stream, once the requests it
 *   carried were answered); rejects as `send()` does
 */
export async function exchange(
  state: StreamableClientState,
  text: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  // One session at a time: while a POST without a session id is on its way, others wait for
  // the id it brings (two at once would start two sessions).
  while (state.sessionId === undefined && !state.sessionless && state.starting !== undefined)
    await state.starting;
  let started: (() => void) | undefined;
  if (state.sessionId === undefined && !state.sessionless) {
    state.starting = new Promise<void>((resolve) => {
      started = resolve;
    });
  }
  try {
    return await post(state, text, signal, () => {
      if (started === undefined) return;
      state.starting = undefined;
      started();
      started = undefined;
    });
  } finally {
    if (started !== undefined) {
      state.starting = undefined;
      started();
    }
  }
}

/** What a failed fetch, or a failed read of its body, rejects a send with. */
function failed(
  state: StreamableClientState,
  error: unknown,
  signal: AbortSignal | undefined,
): Error {
  if (state.closed) return new ConnectionClosedError('HTTP transport closed', { cause: error });
  if (signal?.aborted) return new AbortError({ cause: signal.reason });
  if (error instanceof TransportError) return error;
  return new TransportError(`HTTP request failed: ${failureText(error)}`, { cause: error });
}

/** A JSON (or error) answer's body, at most `maxMessageBytes` of it. */
function bodyOf(
  state: StreamableClientState,
  response: Response,
  signal: AbortSignal | undefined,
): Promise<string> {
  return readAnswerText(response, state.maxMessageBytes).catch((error: unknown) => {
    throw failed(state, error, signal);
  });
}

/** One POST: the message out, its answer in (JSON, or an event stream read as it comes). */
async function post(
  state: StreamableClientState,
  text: string,
  signal: AbortSignal | undefined,
  answered: () => void,
): Promise<void> {
  const sessionAtSend = state.sessionId;
  let response: Response;
  try {
    const doFetch = state.doFetch;
    response = await doFetch(state.url, {
      method: 'POST',
      headers: await state.headers({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      }),
      body: text,
      signal:
        signal === undefined ? state.closer.signal : AbortSignal.any([state.closer.signal, signal]),
    });
  } catch (error) {
    throw failed(state, error, signal);
  }
  learnSession(state, response);
  const status = response.status;
  if (state.sessionId === undefined && status >= 200 && status < 300) state.sessionless = true;
  answered();
  if (status === 404 && sessionAtSend !== undefined) {
    const body = await bodyOf(state, response, signal);
    const error = new TransportError('HTTP 404: session expired', { status, body });
    // This call fails with the error; the owner is then told to subscribe again.
    if (state.sessionId === sessionAtSend) state.lose(error, false);
    throw error;
  }
  if (status < 200 || status > 299) {
    const body = await bodyOf(state, response, signal);
    throw new TransportError(`HTTP ${status}`, { status, body });
  }
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream') && response.body !== null) {
    let last: string | undefined;
    let retryMs: number | undefined;
    const body = response.body;
    // A request's answer comes on its stream: its send lasts as long, and fails when the
    // stream ends without it (nothing could bring it any more). So do a batch's requests.
    const owed = owedIds(text);
    const reading = (async () => {
      const end = await readEvents(
        body,
        state.maxMessageBytes,
        (id) => (last = id),
        (data) => {
          watchInitialize(state, text, data);
          if (owed !== undefined && owed.size > 0) takeAnswered(owed, data);
          state.deliver(data);
        },
        // Every request it carried is answered: nothing more is wanted from this stream, even
        // when the server holds it open.
        owed === undefined ? undefined : () => owed.size === 0,
        (ms) => (retryMs = ms),
      );
      if (end === 'settled') return;
      if (end === 'too-large') {
        const error = overLimit(`HTTP ${status} event stream`, state.maxMessageBytes);
        if (owed !== undefined && owed.size > 0 && !state.closed) throw error;
        state.report(error);
        return;
      }
      // The send's signal aborted the exchange (its calls timed out or were aborted): nobody
      // waits for what the stream would bring, so it is not resumed.
      if (signal?.aborted) throw new AbortError({ cause: signal.reason });
      // A stream that dropped before its end, or that the server closed before the answers it
      // owes (SEP-1699: the server may close it and have the client poll): resume it where it
      // stopped with a GET and `Last-Event-ID`, after the `retry` the server gave (until the
      // send's signal says its calls gave up, or every answer came).
      const unanswered = owed !== undefined && owed.size > 0;
      if ((end === 'dropped' || unanswered) && !state.closed && last !== undefined) {
        await resume(state, last, () => {}, undefined, signal, retryMs, owed);
        if (owed !== undefined && owed.size > 0 && !state.closed && signal?.aborted !== true) {
          throw new TransportError(
            `HTTP ${status} event stream ended and could not be resumed: no answer to ${unansweredWords(owed)}`,
            { status },
          );
        }
        return;
      }
      if (owed !== undefined && owed.size > 0 && !state.closed) {
        throw new TransportError(
          `HTTP ${status} event stream ended without an answer to ${unansweredWords(owed)}`,
          { status },
        );
      }
    })();
    if (owed !== undefined) return reading;
    void reading;
    return;
  }
  const body = await bodyOf(state, response, signal);
  if (body.trim() === '') {
    if (expectsAnswer(text)) {
      throw new TransportError(`HTTP ${status}: no answer to a request`, { status, body });
    }
    return;
  }
  watchInitialize(state, text, body);
  state.deliver(body);
  // Delivered first: what it answers is settled, and only a request it left unanswered fails.
  const missing = missingAnswer(status, text, body);
  if (missing !== undefined) throw missing;
}
