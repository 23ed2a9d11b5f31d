/**
 * CORS headers, computed once per handler and per request origin.
 *
 * @module
 */
import { DEFAULT_CORS_MAX_AGE } from './constants.js';
import type { CorsOptions } from './handler-options.js';

/** A resolved CORS policy. */
export interface CorsPolicy {
  /**
   * The headers to add to an ordinary answer for a request from `origin` (flat name/value list),
   * or an empty list when the origin is not allowed.
   */
  readonly responseHeaders: (origin: string | undefined) => readonly string[];
  /**
   * The headers of a preflight answer, or `undefined` when the origin is not allowed.
   */
  readonly preflightHeaders: (
    origin: string | undefined,
    requestHeaders: string | undefined,
  ) => readonly string[] | undefined;
}

const none: readonly string[] = [];

/**
 * Resolves the `cors` option of a handler.
 *
 * @param option - `true`, options, or `false`/`undefined` for none
 * @param methods - the methods a preflight allows
 * @returns the policy, or `undefined` when CORS is off
 */
export function resolveCors(
  option: boolean | CorsOptions | undefined,
  methods = 'POST, OPTIONS',
): CorsPolicy | undefined {
  if (option === undefined || option === false) return undefined;
  const o: CorsOptions = option === true ? {} : option;
  const credentials = o.credentials === true;
  const allowed = o.origin ?? '*';
  const any = allowed === '*';
  const list = typeof allowed === 'string' ? [allowed] : Array.isArray(allowed) ? allowed : [];
  const test = typeof allowed === 'function' ? (allowed as (origin: string) => boolean) : undefined;
  const exposed = o.exposeHeaders?.length ? o.exposeHeaders.join(', ') : undefined;
  const allowHeaders = o.headers === undefined ? undefined : o.headers.join(', ');
  const maxAge = String(o.maxAge ?? DEFAULT_CORS_MAX_AGE);

  const tail: string[] = [];
  if (credentials) tail.push('access-control-allow-credentials', 'true');
  if (exposed !== undefined) tail.push('access-control-expose-headers', exposed);
  const star: readonly string[] = ['access-control-allow-origin', '*', ...tail];

  /** The `Access-Control-Allow-Origin` value, or undefined when not allowed. */
  const allowOrigin = (origin: string | undefined): string | undefined => {
    if (any && !credentials) return '*';
    if (origin === undefined) return undefined;
    if (any) return origin;
    if (test !== undefined) {
      try {
        return test(origin) ? origin : undefined;
      } catch {
        return undefined;
      }
    }
    return list.includes(origin) ? origin : undefined;
  };

  const base = (value: string): string[] =>
    value === '*' ? [...star] : ['access-control-allow-origin', value, 'vary', 'Origin', ...tail];

  return {
    responseHeaders: (origin) => {
      const value = allowOrigin(origin);
      if (value === undefined) return none;
      return value === '*' ? star : base(value);
    },
    preflightHeaders: (origin, requestHeaders) => {
      const value = allowOrigin(origin);
      if (value === undefined) return undefined;
      const headers = base(value);
      headers.push('access-control-allow-methods', methods, 'access-control-max-age', maxAge);
      if (allowHeaders !== undefined) {
        headers.push('access-control-allow-headers', allowHeaders);
      } else if (requestHeaders !== undefined && requestHeaders !== '') {
        headers.push('access-control-allow-headers', requestHeaders);
        headers.push('vary', 'Access-Control-Request-Headers');
      }
      return headers;
    },
  };
}
