/**
 * Which request content types the handlers accept.
 *
 * @module
 */

const accepted: ReadonlySet<string> = new Set([
  'application/json',
  'application/json-rpc',
  'application/jsonrequest',
]);

/**
 * Whether a request's `Content-Type` is one the handlers read: `application/json`,
 * `application/json-rpc` or `application/jsonrequest`, any letter case, with parameters allowed
 * but a `charset` other than UTF-8 refused. A missing header is refused by the handlers unless
 * `requireJsonContentType` is `false`.
 *
 * @param value - the header value
 * @returns whether the body may be read as JSON-RPC
 * @example
 * ```ts
 * isJsonContentType('application/json; charset=utf-8'); // true
 * isJsonContentType('text/plain'); // false
 * ```
 */
export function isJsonContentType(value: string): boolean {
  if (value === 'application/json') return true;
  const semi = value.indexOf(';');
  if (semi === -1) return accepted.has(value.trim().toLowerCase());
  if (!accepted.has(value.slice(0, semi).trim().toLowerCase())) return false;
  const params = value.slice(semi + 1).split(';');
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}
