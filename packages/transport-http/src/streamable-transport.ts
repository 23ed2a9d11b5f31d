/**
 * The Streamable HTTP client transport: POSTs each message, reads a JSON or an event-stream
 * answer, keeps the session id, and (when asked) holds the session's GET stream open with
 * reconnection and `Last-Event-ID`. Imports no `node:` module.
 *
 * @module
 */
import {
  AbortError,
  type BackoffOptions,
  ConnectionClosedError,
  DEFAULT_CLIENT_MAX_MESSAGE_BYTES,
  type SendOptions,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import {
  backoffDelay,
  type ResolvedBackoffOptions,
  resolveBackoff,
} from '@jsonrpc-kit/core/engine';
import { readAnswerText } from './answer-body.js';
import {
  expectsAnswer,
  missingAnswer,
  owedIds,
  takeAnswered,
  unansweredWords,
} from './expects-answer.js';
import { failureText } from './failure-text.js';
import { checkHttpOptions } from './option-names.js';
import type { FetchLike, HttpHeadersOption } from './post-transport.js';
import { createSseParser } from './sse.js';

/**
 * Reconnection of the GET stream and of dropped answer streams: core's backoff shape
 * ({@link BackoffOptions}: `strategy`, `delay`, `maxDelay`, `jitter`, `maxAttempts`), with
 * {@link DEFAULT_STREAMABLE_RECONNECT} for what is unset. A server's SSE `retry` field replaces
 * `delay`. After `maxAttempts` failed attempts in a row, `onError` is told and the stream is left.
 *
 * @example
 * ```ts
 * const reconnect: StreamableReconnectOptions = { delay: 250, maxDelay: 5000, maxAttempts: 10 };
 * ```
 */
export type StreamableReconnectOptions = BackoffOptions;

/**
 * How the Streamable HTTP client reconnects its streams: exponential from 500 ms up to 30 s, no
 * jitter, five failed attempts in a row.
 *
 * @default { strategy: 'exponential', delay: 500, maxDelay: 30_000, jitter: 0, maxAttempts: 5 }
 */
export const DEFAULT_STREAMABLE_RECONNECT: ResolvedBackoffOptions = Object.freeze({
  strategy: 'exponential',
  delay: 500,
  maxDelay: 30_000,
  jitter: 0,
  maxAttempts: 5,
});

/** The reconnect options' old names, and what replaced them. */
const RENAMED_RECONNECT: Readonly<Record<string, string>> = {
  initialDelay: 'delay',
  maxRetries: 'maxAttempts',
};

/** Options of {@link createStreamableHttpTransport}. */
export interface StreamableHttpTransportOptions {
  /** The endpoint. */
  readonly url: string | URL;
  /** Extra request headers, or a function returning them (called before every request). */
  readonly headers?: HttpHeadersOption;
  /**
   * The `fetch` to use.
   *
   * @default globalThis.fetch
   */
  readonly fetch?: FetchLike;
  /**
   * The header that carries the session id.
   *
   * @default 'mcp-session-id'
   */
  readonly sessionHeader?: string;
  /**
   * Open the session's GET stream (server push not tied to a request) once a session exists,
   * and keep it open. Without it, the stream is open while the client holds live subscriptions
   * (`client.subscribe()`). A server that answers it 405 offers none; the transport then stops
   * asking.
   *
   * @default false
   */
  readonly stream?: boolean;
  /** Reconnection with backoff. */
  readonly reconnect?: StreamableReconnectOptions;
  /**
   * Called when the server no longer knows the session (404): the session id is dropped, so the
   * next message starts a new session (send `initialize` again here; a returned promise is
   * awaited). Then the owner is told the transport reconnected, so a client subscribes again
   * (`onResubscribed`).
   */
  readonly onSessionExpired?: () => void;
  /**
   * The largest message taken: a JSON answer's body in bytes (counted as they arrive), an event of
   * a stream in characters (each at least one byte). A JSON answer over it is dropped at once, its
   * exchange aborted, and `send` rejects with a `TransportError` saying the answer was too large;
   * a stream whose event grows past it is dropped: the requests it owed an answer fail with a
   * `TransportError`, and the GET stream counts a failed attempt to reconnect.
   *
   * @default {@link DEFAULT_CLIENT_MAX_MESSAGE_BYTES} (16 MiB)
   */
  readonly maxMessageBytes?: number;
}

/** A Streamable HTTP client transport, with its session. */
export interface StreamableHttpTransport extends Transport {
  /** The session id the server assigned, once it did. */
  readonly sessionId: string | undefined;
  /**
   * Ends the session on the server (DELETE) and forgets it.
   *
   * @returns resolves once the server answered
   */
  endSession(): Promise<void>;
}

const MCP_VERSION_HEADER = 'mcp-protocol-version';
/** Milliseconds an event stream must stay open to count as a success for reconnection. */
const STREAM_LIVED = 1000;

function lowerCase(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return out;
}

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
 * A client {@link Transport} for Streamable HTTP (MCP's dialect, any JSON-RPC). Sends
 * `Accept: application/json, text/event-stream`; a JSON answer is delivered whole, an event
 * stream event by event as it arrives (progress, notifications and server→client requests before
 * the answer), so the transport is duplex: give it to `createClient` with `onRequest` and the
 * client's answers to server requests go back as POSTs. The session id from the server is sent
 * with every later request; an answer stream that drops is resumed with `Last-Event-ID`.
 * After `initialize`, the protocol version the server chose is sent as `MCP-Protocol-Version`.
 *
 * `send` resolves once the server accepted the message (JSON answers: once delivered). It rejects
 * with a `TransportError` carrying `status` and `body` for a non-2xx answer (404 also drops the
 * session and calls `onSessionExpired`), with an `AbortError` for `signal`, and with a
 * `ConnectionClosedError` after `close()`.
 *
 * @param options - url, headers, fetch, session header, GET stream and reconnection
 * @returns the transport
 * @throws TypeError when no `fetch` is given and the runtime has none
 * @example
 * ```ts
 * import { createClient } from '@jsonrpc-kit/client';
 * import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
 *
 * const transport = createStreamableHttpTransport({ url: 'https://example.com/mcp', stream: true });
 * const client = createClient(transport, { onNotification: (method, params) => console.log(method, params) });
 * ```
 */
export function createStreamableHttpTransport(
  options: StreamableHttpTransportOptions,
): StreamableHttpTransport {
  checkHttpOptions('createStreamableHttpTransport', options);
  const url = String(options.url);
  let fetchFn = options.fetch;
  if (fetchFn === undefined) {
    if (typeof globalThis.fetch !== 'function') {
      throw new TypeError(
        'createStreamableHttpTransport: no fetch in this runtime; pass options.fetch',
      );
    }
    fetchFn = (input, init) => globalThis.fetch(input, init);
  }
  const doFetch = fetchFn;
  const sessionHeader = (options.sessionHeader ?? 'mcp-session-id').toLowerCase();
  const reconnect = resolveBackoff(
    options.reconnect ?? {},
    DEFAULT_STREAMABLE_RECONNECT,
    'createStreamableHttpTransport: reconnect',
    RENAMED_RECONNECT,
  );
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_CLIENT_MAX_MESSAGE_BYTES;
  const closer = new AbortController();
  let handler: TransportHandler | undefined;
  const inbox: string[] = [];
  let closed = false;
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let getStream: 'off' | 'opening' | 'unsupported' = 'off';
  let getLastEventId: string | undefined;
  /** Aborts the GET stream that is open, when it is no longer wanted. */
  let getAbort: AbortController | undefined;
  let pushWanted = false;
  const wanted = (): boolean => options.stream === true || pushWanted;
  /** The server gave no session id: it has no sessions, so POSTs need not wait for one. */
  let sessionless = false;
  /** While the first POST without a session id is on its way, others wait for its id. */
  let starting: Promise<void> | undefined;

  const report = (error: unknown): void => {
    handler?.onError?.(error instanceof Error ? error : new Error(String(error)));
  };

  const deliver = (text: string): void => {
    if (handler === undefined) {
      inbox.push(text);
      return;
    }
    try {
      handler.onMessage(text);
    } catch (error) {
      report(error);
    }
  };

  const headers = async (extra: Record<string, string>): Promise<Record<string, string>> => {
    const option = options.headers;
    const user = option === undefined ? {} : typeof option === 'function' ? await option() : option;
    const out: Record<string, string> = { ...extra, ...lowerCase(user) };
    if (sessionId !== undefined) out[sessionHeader] = sessionId;
    if (protocolVersion !== undefined) out[MCP_VERSION_HEADER] = protocolVersion;
    return out;
  };

  const learnSession = (response: Response): void => {
    const id = response.headers.get(sessionHeader);
    if (id !== null && id !== sessionId) {
      sessionId = id;
      if (getStream === 'off' && wanted()) void openGetStream();
    }
  };

  /**
   * Reads an event stream to its end: `ended` when it ended cleanly, `dropped` when it broke off,
   * `too-large` when an event grew past `maxMessageBytes`, `settled` when `settled()` said after a
   * chunk that nothing more is wanted from it (the stream is cancelled in both, which aborts its
   * exchange).
   */
  const readEvents = async (
    body: ReadableStream<Uint8Array>,
    onId: (id: string) => void,
    onMessage: (data: string) => void,
    settled?: () => boolean,
    onRetry?: (ms: number) => void,
  ): Promise<'ended' | 'dropped' | 'too-large' | 'settled'> => {
    const decoder = new TextDecoder();
    let tooLarge = false;
    const parser = createSseParser((event) => {
      if (tooLarge || event.data.length > maxMessageBytes) {
        tooLarge = true;
        return;
      }
      if (event.id !== undefined) onId(event.id);
      if (event.event !== 'message' || event.data === '') return;
      onMessage(event.data);
    }, onRetry);
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        parser.push(decoder.decode(value, { stream: true }));
        if (tooLarge || parser.buffered > maxMessageBytes) {
          await reader.cancel().catch(() => undefined);
          return 'too-large';
        }
        if (settled?.() === true) {
          await reader.cancel().catch(() => undefined);
          return 'settled';
        }
      }
    } catch {
      return 'dropped';
    } finally {
      reader.releaseLock();
    }
  };
  const overLimit = (what: string): TransportError =>
    new TransportError(`${what}: an event over maxMessageBytes (${maxMessageBytes} characters)`);

  /**
   * Opens (or resumes) a GET stream; retries with backoff while it drops. The server's SSE
   * `retry` (given as `retryMs`, or sent on the stream) replaces `delay` as the wait
   * before reconnecting, and a resumed answer stream waits it before its first attempt.
   */
  const resume = async (
    lastEventId: string | undefined,
    onId: (id: string) => void,
    keepOpen: AbortSignal | undefined,
    stop?: AbortSignal,
    retryMs?: number,
    owed?: Set<string>,
  ): Promise<void> => {
    let attempt = 0;
    let base = retryMs ?? reconnect.delay;
    /** Set once a stream came and went (or a server said when to come back): wait `base`. */
    let again = retryMs !== undefined;
    let last = lastEventId;
    const until = keepOpen ?? stop;
    const signal =
      until === undefined
        ? closer.signal
        : AbortSignal.any(
            keepOpen === undefined || stop === undefined
              ? [closer.signal, until]
              : [closer.signal, keepOpen, stop],
          );
    while (!closed && attempt <= reconnect.maxAttempts) {
      if (attempt > 0) await sleep(backoffDelay(attempt, { ...reconnect, delay: base }), signal);
      else if (again) await sleep(base, signal);
      if (closed || sessionId === undefined || signal.aborted) return;
      attempt++;
      let response: Response;
      try {
        const extra: Record<string, string> = { accept: 'text/event-stream' };
        if (last !== undefined) extra['last-event-id'] = last;
        response = await doFetch(url, {
          method: 'GET',
          headers: await headers(extra),
          signal,
        });
      } catch (error) {
        if (closed || signal.aborted) return;
        report(new TransportError('HTTP event stream failed', { cause: error }));
        continue;
      }
      if (response.status === 405) {
        getStream = 'unsupported';
        return;
      }
      if (response.status === 404) {
        await response.body?.cancel();
        lose(
          new TransportError('HTTP 404 on the event stream: session expired', { status: 404 }),
          true,
        );
        return;
      }
      if (!response.ok || response.body === null) {
        report(
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
        (id) => {
          received = true;
          last = id;
          onId(id);
        },
        (data) => {
          if (owed !== undefined && owed.size > 0) takeAnswered(owed, data);
          deliver(data);
        },
        owed === undefined ? undefined : () => owed.size === 0,
        (ms) => (base = ms),
      );
      if (end === 'settled') return;
      if (end === 'too-large') {
        // A failed attempt, whatever it carried before: the same event may come again.
        report(overLimit('HTTP event stream'));
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
    if (!closed && attempt > reconnect.maxAttempts)
      report(new TransportError('HTTP event stream: gave up reconnecting'));
  };

  const openGetStream = async (): Promise<void> => {
    if (getStream !== 'off') return;
    getStream = 'opening';
    const abort = new AbortController();
    getAbort = abort;
    await resume(getLastEventId, (id) => (getLastEventId = id), abort.signal);
    if (getAbort === abort) getAbort = undefined;
    if (getStream !== 'opening') return;
    getStream = 'off';
    // Closed as no longer wanted, then wanted again before it finished closing: open it anew.
    if (abort.signal.aborted && !closed && wanted() && sessionId !== undefined) {
      void openGetStream();
    }
  };

  const expire = (): void => {
    sessionId = undefined;
    protocolVersion = undefined;
    getLastEventId = undefined;
    getAbort?.abort();
  };

  /**
   * The server no longer knows the session: calls in flight on it will not be answered, the
   * application may start a new one (`onSessionExpired`), and the owner is told the transport
   * reconnected, so a client subscribes again.
   */
  const lose = (error: Error, disconnect: boolean): void => {
    expire();
    if (disconnect) handler?.onDisconnect?.(error);
    // The hook's type is `() => void`, which an async function fits: its promise is awaited.
    void new Promise<unknown>((resolve) => resolve(options.onSessionExpired?.()))
      .catch(report)
      .then(() => {
        if (!closed) handler?.onReconnect?.();
      });
  };

  const watchInitialize = (sent: string, answer: string): void => {
    if (!sent.includes('"initialize"')) return;
    try {
      const value = JSON.parse(answer) as { result?: { protocolVersion?: unknown } };
      const version = value.result?.protocolVersion;
      if (typeof version === 'string') protocolVersion = version;
    } catch {
      // not an initialize answer
    }
  };

  const exchange = async (text: string, signal: AbortSignal | undefined): Promise<void> => {
    // One session at a time: while a POST without a session id is on its way, others wait for
    // the id it brings (two at once would start two sessions).
    while (sessionId === undefined && !sessionless && starting !== undefined) await starting;
    let started: (() => void) | undefined;
    if (sessionId === undefined && !sessionless) {
      starting = new Promise<void>((resolve) => {
        started = resolve;
      });
    }
    try {
      return await post(text, signal, () => {
        if (started === undefined) return;
        starting = undefined;
        started();
        started = undefined;
      });
    } finally {
      if (started !== undefined) {
        starting = undefined;
        started();
      }
    }
  };

  /** What a failed fetch, or a failed read of its body, rejects a send with. */
  const failed = (error: unknown, signal: AbortSignal | undefined): Error => {
    if (closed) return new ConnectionClosedError('HTTP transport closed', { cause: error });
    if (signal?.aborted) return new AbortError({ cause: signal.reason });
    if (error instanceof TransportError) return error;
    return new TransportError(`HTTP request failed: ${failureText(error)}`, { cause: error });
  };

  /** A JSON (or error) answer's body, at most `maxMessageBytes` of it. */
  const bodyOf = (response: Response, signal: AbortSignal | undefined): Promise<string> =>
    readAnswerText(response, maxMessageBytes).catch((error: unknown) => {
      throw failed(error, signal);
    });

  const post = async (
    text: string,
    signal: AbortSignal | undefined,
    answered: () => void,
  ): Promise<void> => {
    const sessionAtSend = sessionId;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: await headers({
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        }),
        body: text,
        signal: signal === undefined ? closer.signal : AbortSignal.any([closer.signal, signal]),
      });
    } catch (error) {
      throw failed(error, signal);
    }
    learnSession(response);
    const status = response.status;
    if (sessionId === undefined && status >= 200 && status < 300) sessionless = true;
    answered();
    if (status === 404 && sessionAtSend !== undefined) {
      const body = await bodyOf(response, signal);
      const error = new TransportError('HTTP 404: session expired', { status, body });
      // This call fails with the error; the owner is then told to subscribe again.
      if (sessionId === sessionAtSend) lose(error, false);
      throw error;
    }
    if (status < 200 || status > 299) {
      const body = await bodyOf(response, signal);
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
          (id) => (last = id),
          (data) => {
            watchInitialize(text, data);
            if (owed !== undefined && owed.size > 0) takeAnswered(owed, data);
            deliver(data);
          },
          // Every request it carried is answered: nothing more is wanted from this stream, even
          // when the server holds it open.
          owed === undefined ? undefined : () => owed.size === 0,
          (ms) => (retryMs = ms),
        );
        if (end === 'settled') return;
        if (end === 'too-large') {
          const error = overLimit(`HTTP ${status} event stream`);
          if (owed !== undefined && owed.size > 0 && !closed) throw error;
          report(error);
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
        if ((end === 'dropped' || unanswered) && !closed && last !== undefined) {
          await resume(last, () => {}, undefined, signal, retryMs, owed);
          if (owed !== undefined && owed.size > 0 && !closed && signal?.aborted !== true) {
            throw new TransportError(
              `HTTP ${status} event stream ended and could not be resumed: no answer to ${unansweredWords(owed)}`,
              { status },
            );
          }
          return;
        }
        if (owed !== undefined && owed.size > 0 && !closed) {
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
    const body = await bodyOf(response, signal);
    if (body.trim() === '') {
      if (expectsAnswer(text)) {
        throw new TransportError(`HTTP ${status}: no answer to a request`, { status, body });
      }
      return;
    }
    watchInitialize(text, body);
    deliver(body);
    // Delivered first: what it answers is settled, and only a request it left unanswered fails.
    const missing = missingAnswer(status, text, body);
    if (missing !== undefined) throw missing;
  };

  return {
    get sessionId() {
      return sessionId;
    },
    setPushWanted(value) {
      pushWanted = value;
      if (wanted()) {
        if (getStream === 'off' && sessionId !== undefined && !closed) void openGetStream();
      } else getAbort?.abort();
    },
    start(h) {
      if (handler !== undefined) return Promise.reject(new Error('Transport already started'));
      if (closed) return Promise.reject(new ConnectionClosedError('HTTP transport closed'));
      handler = h;
      for (const message of inbox.splice(0)) deliver(message);
      return Promise.resolve();
    },
    send(text: string, sendOptions?: SendOptions): Promise<void> {
      if (closed) return Promise.reject(new ConnectionClosedError('HTTP transport closed'));
      const signal = sendOptions?.signal;
      if (signal?.aborted) return Promise.reject(new AbortError({ cause: signal.reason }));
      return exchange(text, signal);
    },
    async endSession() {
      if (sessionId === undefined) return;
      const response = await doFetch(url, { method: 'DELETE', headers: await headers({}) });
      await response.body?.cancel();
      sessionId = undefined;
    },
    async close() {
      if (closed) return;
      closed = true;
      closer.abort(new ConnectionClosedError('HTTP transport closed'));
      handler?.onClose();
    },
  };
}
