/**
 * The {@link TransportContext} of one HTTP exchange, with a signal created only when read.
 *
 * @module
 */
import {
  ConnectionClosedError,
  type TransportContext,
  type TransportHeaders,
} from '@jsonrpc-kit/core';

/** The abort reason of a call whose HTTP client went away. */
const clientGone = (): ConnectionClosedError =>
  new ConnectionClosedError('The HTTP client disconnected');

/**
 * Where an {@link HttpContext}'s signal comes from: a signal to use as is (the fetch `Request`'s),
 * or `watch`, called once (as a method of this object) when the signal is first read, to start
 * watching for the client going away, so exchanges whose handlers never look pay nothing for it.
 */
export interface HttpContextSource {
  readonly signal?: AbortSignal;
  watch?(disconnect: () => void): void;
}

/** A TransportContext whose `signal` is made on first use and aborted when the client leaves. */
export class HttpContext implements TransportContext {
  readonly kind: 'http' = 'http';
  readonly headers: TransportHeaders;
  readonly remoteAddress?: string;
  readonly url: string;
  readonly httpMethod: string;
  /** The handler's body limit, which the server applies to this exchange. */
  readonly maxMessageBytes?: number;
  auth?: unknown;
  #controller: AbortController | undefined = undefined;
  #gone = false;
  readonly #source: HttpContextSource | undefined;

  /**
   * @param headers - lower-case request headers
   * @param remoteAddress - the peer's address, when known
   * @param url - the request URL
   * @param httpMethod - the HTTP method
   * @param source - where the signal comes from
   * @param maxMessageBytes - the handler's body limit, for the server to apply
   */
  constructor(
    headers: TransportHeaders,
    remoteAddress: string | undefined,
    url: string,
    httpMethod: string,
    source?: HttpContextSource,
    maxMessageBytes?: number,
  ) {
    this.headers = headers;
    if (maxMessageBytes !== undefined) {
      (this as { maxMessageBytes?: number }).maxMessageBytes = maxMessageBytes;
    }
    (this as { remoteAddress?: string | undefined }).remoteAddress = remoteAddress;
    this.url = url;
    this.httpMethod = httpMethod;
    this.#source = source;
  }

  /**
   * Aborted when the client disconnects before the answer, with a `ConnectionClosedError`: a
   * caller that went away is routine, not a handler's failure.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      const source = this.#source;
      const external = source?.signal;
      if (this.#gone || external?.aborted === true) {
        this.#gone = true;
        this.#controller.abort(clientGone());
      } else if (external !== undefined) {
        external.addEventListener('abort', () => this.disconnect(), { once: true });
      } else source?.watch?.(() => this.disconnect());
    }
    return this.#controller.signal;
  }

  /** The client went away: aborts the signal (now or when first read). */
  disconnect(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#controller?.abort(clientGone());
  }
}
