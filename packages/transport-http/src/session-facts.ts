/**
 * What a Streamable HTTP session keeps of the request that started it (`ctx.transport` of its
 * calls): one frozen record for sessions that start alike.
 *
 * @module
 */
import type { TransportContext, TransportHeaders } from '@jsonrpc-kit/core';
import { META_HEADER, TIMEOUT_HEADER } from '@jsonrpc-kit/core/engine';
import type { HttpContext } from './http-context.js';

/**
 * The request headers that only framed the starting request, or spoke of its calls alone (the
 * caller's time left and metadata: kept, they would bound every later call of the session by the
 * first one's deadline): a session keeps none of them.
 */
const REQUEST_ONLY_HEADERS: ReadonlySet<string> = new Set([
  TIMEOUT_HEADER,
  META_HEADER,
  'accept',
  'accept-encoding',
  'connection',
  'content-length',
  'content-type',
  'expect',
  'host',
  'keep-alive',
  'last-event-id',
  'te',
  'transfer-encoding',
  'upgrade',
]);
const NO_HEADERS: TransportHeaders = Object.freeze({});
/**
 * A flat copy of a text: one string, where a text built by concatenation (the request URL) is a
 * rope of its parts that the session would keep as such.
 *
 * @param text - any text
 * @returns the same text, as one string
 */
export function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * Keeps one copy of a text that repeats, such as the URL every session starts at: the copy kept
 * last time when the text is equal to it, else a flat copy of the text.
 */
function repeated(text: string, last: string | undefined): string {
  return text === last ? last : flat(text);
}

/** Whether two sets of kept headers hold the same names and values. */
function sameHeaders(a: TransportHeaders, b: TransportHeaders): boolean {
  if (a === b) return true;
  let count = 0;
  for (const name in a) {
    if (a[name] !== b[name]) return false;
    count++;
  }
  for (const _ in b) count--;
  return count === 0;
}

/**
 * What a session keeps of the request that started it, for `ctx.transport` of its calls: the
 * headers that say something about the caller (authorization, custom ones; not the starting
 * request's framing: host, connection, content type and length, accept…), its address, URL,
 * method, body limit and `auth`; not its signal. Frozen, and one object for every session in a
 * row whose starting requests say the same (equal headers kept, address, URL and limit, the same
 * `auth`): most sessions of a handler start alike, and each would otherwise hold a copy. With no
 * header left, one shared empty object.
 *
 * @returns the keeper of one handler: a starting request's context in, the facts to keep out
 */
export function keepSessionFacts(): (ctx: HttpContext) => TransportContext {
  let last: TransportContext | undefined;
  return (ctx) => {
    let headers: Record<string, string | readonly string[] | undefined> | undefined;
    const all = ctx.headers;
    for (const name in all) {
      if (REQUEST_ONLY_HEADERS.has(name)) continue;
      (headers ??= {})[name] = all[name];
    }
    const kept = headers ?? NO_HEADERS;
    if (
      last !== undefined &&
      last.remoteAddress === ctx.remoteAddress &&
      last.url === ctx.url &&
      last.httpMethod === ctx.httpMethod &&
      last.maxMessageBytes === ctx.maxMessageBytes &&
      last.auth === ctx.auth &&
      sameHeaders(last.headers!, kept)
    ) {
      return last;
    }
    const facts = Object.freeze({
      kind: 'http',
      headers: kept === NO_HEADERS ? kept : Object.freeze(kept),
      remoteAddress:
        ctx.remoteAddress === undefined
          ? undefined
          : repeated(ctx.remoteAddress, last?.remoteAddress),
      url: repeated(ctx.url, last?.url),
      httpMethod: ctx.httpMethod,
      maxMessageBytes: ctx.maxMessageBytes,
      auth: ctx.auth,
    } as TransportContext);
    last = facts;
    return facts;
  };
}
