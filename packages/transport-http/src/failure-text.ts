/**
 * The text of a failed request: `fetch` says only `fetch failed` and keeps the reason (a refused
 * connection, a name that does not resolve) in its `cause`, which is what a caller can act on.
 *
 * @module
 */

/** How deep to follow `cause`: undici nests one or two levels. */
const MAX_DEPTH = 3;

/**
 * The message of `error` followed by what its causes say, in parentheses: `fetch failed (connect
 * ECONNREFUSED 127.0.0.1:8080)`. A cause without a message (an `AggregateError` of the addresses
 * tried) gives its `code` and its errors' messages.
 *
 * @param error - what the request failed with
 * @returns the text for a `TransportError`
 */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reasons: string[] = [];
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; depth < MAX_DEPTH && cause !== undefined && cause !== null; depth++) {
    const reason = describe(cause);
    if (reason !== '' && reason !== message && !reasons.includes(reason)) reasons.push(reason);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return reasons.length === 0 ? message : `${message} (${reasons.join(': ')})`;
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return typeof cause === 'string' ? cause : '';
  if (cause.message !== '') return cause.message;
  const code = (cause as { code?: unknown }).code;
  const inner = (cause as { errors?: unknown }).errors;
  const parts = Array.isArray(inner)
    ? inner.map((each: unknown) => (each instanceof Error ? each.message : String(each)))
    : [];
  const text = parts.filter((part) => part !== '').join(', ');
  if (typeof code === 'string') return text === '' ? code : `${code}: ${text}`;
  return text;
}
