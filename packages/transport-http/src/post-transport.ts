/**
 * The client transport over any "POST this text, give me status and body" function: the fetch
 * and undici paths differ only in that function.
 *
 * @module
 */
import {
  AbortError,
  type CallContext,
  ConnectionClosedError,
  DEFAULT_CLIENT_MAX_MESSAGE_BYTES,
  type SendOptions,
  TimeoutError,
  type Transport,
  TransportError,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { callContextHeaders, createTransportState } from '@jsonrpc-kit/core/engine';
import { DEFAULT_HTTP_TIMEOUT } from './constants.js';
import { expectsAnswer, missingAnswer } from './expects-answer.js';
import { failureText } from './failure-text.js';

/** Request headers: fixed, or a function called before every request (fresh auth tokens). */
export type HttpHeadersOption =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);

/** A `fetch`-compatible function. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of `createHttpTransport`. */
export interface HttpTransportOptions {
  /** The endpoint to POST to. */
  readonly url: string | URL;
  /**
   * Extra request headers, or a function returning them (called before every request). They
   * override the defaults `content-type: application/json` and `accept: application/json`.
   */
  readonly headers?: HttpHeadersOption;
  /**
   * The `fetch` to use. Given, the transport uses it on every runtime (also on Node, instead of
   * undici).
   *
   * @default globalThis.fetch (the `node` entry uses an undici keep-alive pool instead)
   */
  readonly fetch?: FetchLike;
  /**
   * Milliseconds one HTTP exchange may take before it is aborted and `send` rejects with a
   * `TimeoutError`; `0` waits forever.
   *
   * @default 0 ({@link DEFAULT_HTTP_TIMEOUT})
   */
  readonly timeout?: number;
  /**
   * The largest answer body taken, in bytes, counted as it arrives. A larger one (or one whose
   * `Content-Length` says so) is dropped at once, its connection closed, and `send` rejects with a
   * `TransportError` saying the answer was too large: a server cannot grow the client's memory
   * past it, not even with an endless body.
   *
   * @default 16777216 ({@link DEFAULT_CLIENT_MAX_MESSAGE_BYTES}, 16 MiB)
   */
  readonly maxMessageBytes?: number;
}

/** Status and body of an HTTP answer. */
export interface HttpReply {
  readonly status: number;
  readonly body: string;
}

/** Sends one POST; `signal`, when given, aborts it. */
export type Post = (
  body: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal | undefined,
) => Promise<HttpReply>;

/**
 * The answer size limit of a client transport's options.
 *
 * @param options - the transport's options
 * @returns `maxMessageBytes`, or its default
 * @throws RangeError when `maxMessageBytes` is not a positive number
 */
export function answerLimit(options: { readonly maxMessageBytes?: number | undefined }): number {
  const max = options.maxMessageBytes ?? DEFAULT_CLIENT_MAX_MESSAGE_BYTES;
  if (!(max > 0)) throw new RangeError(`maxMessageBytes must be > 0, got ${max}`);
  return max;
}

const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json',
};

/** Whether a non-empty body may be JSON: its first non-blank character is `{` or `[`. */
function looksLikeJson(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return true;
    // space, tab, LF, CR, BOM
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0xfeff) return false;
  }
  return false;
}

/** Whether a body holds only blanks. */
function isBlank(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

/** Hooks of {@link createPostTransport}. */
export interface PostTransportHooks {
  /** Sends one POST. */
  readonly post: Post;
  /** Releases what `post` holds (a connection pool) when the transport closes. */
  readonly dispose?: () => Promise<void>;
  /** Called once with the signal that aborts every exchange on close. */
  readonly prepareSignal?: (signal: AbortSignal) => void;
  /**
   * `dispose` aborts every exchange in flight (a pool the transport owns): no close signal is
   * then attached to each request.
   */
  readonly disposeAborts?: boolean;
}

/**
 * Builds the client transport around a POST function.
 *
 * @param options - url, headers and timeout
 * @param hooks - the POST function and its disposal
 * @returns the transport
 * @throws RangeError when `timeout` is negative
 */
export function createPostTransport(
  options: HttpTransportOptions,
  hooks: PostTransportHooks,
): Transport {
  const timeout = options.timeout ?? DEFAULT_HTTP_TIMEOUT;
  if (!(timeout >= 0)) throw new RangeError(`timeout must be >= 0, got ${timeout}`);
  const headerOption = options.headers;
  const fixedHeaders =
    typeof headerOption === 'function'
      ? undefined
      : headerOption === undefined
        ? DEFAULT_HEADERS
        : { ...DEFAULT_HEADERS, ...lowerCase(headerOption) };
  const headerFunction = typeof headerOption === 'function' ? headerOption : undefined;
  const post = hooks.post;
  const closer = new AbortController();
  // Aborts exchanges in flight on close, unless disposing the POST function does that already.
  const closeSignal = hooks.disposeAborts === true ? undefined : closer.signal;
  if (closeSignal !== undefined) hooks.prepareSignal?.(closeSignal);

  const state = createTransportState();
  let closed = false;
  let closing: Promise<void> | undefined;

  const failure = (
    error: unknown,
    userSignal: AbortSignal | undefined,
    timeoutSignal: AbortSignal | undefined,
  ): Error => {
    if (closed) return new ConnectionClosedError('HTTP transport closed', { cause: error });
    if (userSignal?.aborted) return new AbortError({ cause: userSignal.reason });
    if (timeoutSignal?.aborted) return new TimeoutError(timeout, { cause: error });
    // The POST function's own verdict (an answer too large).
    if (error instanceof TransportError) return error;
    return new TransportError(`HTTP request failed: ${failureText(error)}`, { cause: error });
  };

  const exchange = async (
    text: string,
    headers: Readonly<Record<string, string>>,
    userSignal: AbortSignal | undefined,
    context: CallContext | undefined,
  ): Promise<void> => {
    // A call's deadline and metadata go in headers (see core's call-context).
    if (context !== undefined) headers = { ...headers, ...callContextHeaders(context) };
    let signal = closeSignal;
    let timeoutSignal: AbortSignal | undefined;
    if (timeout > 0 || userSignal !== undefined) {
      const signals: AbortSignal[] = closeSignal === undefined ? [] : [closeSignal];
      if (userSignal !== undefined) signals.push(userSignal);
      if (timeout > 0) signals.push((timeoutSignal = AbortSignal.timeout(timeout)));
      signal = signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    }
    let reply: HttpReply;
    try {
      reply = await post(text, headers, signal);
    } catch (error) {
      throw failure(error, userSignal, timeoutSignal);
    }
    if (closed) throw new ConnectionClosedError('HTTP transport closed');
    const { status, body } = reply;
    if (status < 200 || status > 299) {
      throw new TransportError(`HTTP ${status}`, { status, body });
    }
    if (body.length === 0 || isBlank(body)) {
      // Rare path: nobody will ever answer a request that got an empty answer; fail it now.
      if (expectsAnswer(text)) {
        throw new TransportError(`HTTP ${status}: no answer to a request`, { status, body });
      }
      return;
    }
    if (!looksLikeJson(body)) {
      throw new TransportError(`HTTP ${status} answer is not JSON`, { status, body });
    }
    state.deliver(body);
    // Delivered first: what it answers is settled, and only a request it left unanswered fails.
    const missing = missingAnswer(status, text, body);
    if (missing !== undefined) throw missing;
  };

  return {
    carriesCallContext: true,
    start(h: TransportHandler): Promise<void> {
      if (closed && !state.started) {
        return Promise.reject(new ConnectionClosedError('HTTP transport closed'));
      }
      return state.start(h);
    },

    send(text: string, sendOptions?: SendOptions): Promise<void> {
      if (closed) return Promise.reject(new ConnectionClosedError('HTTP transport closed'));
      const userSignal = sendOptions?.signal;
      if (userSignal?.aborted) {
        return Promise.reject(new AbortError({ cause: userSignal.reason }));
      }
      const context = sendOptions?.callContext;
      if (fixedHeaders !== undefined) return exchange(text, fixedHeaders, userSignal, context);
      let extra: ReturnType<NonNullable<typeof headerFunction>>;
      try {
        extra = headerFunction!();
      } catch (error) {
        return Promise.reject(new TransportError('HTTP headers function threw', { cause: error }));
      }
      if (!(extra instanceof Promise)) {
        return exchange(text, { ...DEFAULT_HEADERS, ...lowerCase(extra) }, userSignal, context);
      }
      return extra.then(
        (value) => exchange(text, { ...DEFAULT_HEADERS, ...lowerCase(value) }, userSignal, context),
        (error: unknown) => {
          throw new TransportError('HTTP headers function failed', { cause: error });
        },
      );
    },

    close(): Promise<void> {
      if (closing !== undefined) return closing;
      closed = true;
      closer.abort(new ConnectionClosedError('HTTP transport closed'));
      closing = (async () => {
        try {
          await hooks.dispose?.();
        } catch {
          // A pool that fails to close has nothing left to tell us.
        }
        state.close();
      })();
      return closing;
    },
  };
}

function lowerCase(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return out;
}
