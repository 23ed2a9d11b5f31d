/**
 * The fetch `Response`s of the HTTP handlers: JSON, empty, and what the request policy answered.
 * Imports no `node:` module.
 *
 * @module
 */
import { discard } from './fetch-body.js';
import type { PolicyDecision } from './request-policy.js';

/** A `Headers` from a flat name/value list. */
export function headersOf(list: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < list.length; i += 2) headers.append(list[i]!, list[i + 1]!);
  return headers;
}

/** A JSON answer. */
export function json(status: number, body: string, extra: readonly string[]): Response {
  const headers = headersOf(extra);
  headers.set('content-type', 'application/json');
  return new Response(body, { status, headers });
}

/** An answer without a body. */
export function empty(status: number, extra: readonly string[]): Response {
  return new Response(null, { status, headers: headersOf(extra) });
}

/**
 * What the request policy answered, as a `Response` (an over-length body is drained in the
 * background, so the client can read the answer).
 *
 * @param decision - the policy's answer
 * @param request - the request
 * @returns the response
 */
export function policyResponse(
  decision: Extract<PolicyDecision, { kind: 'answer' }>,
  request: Request,
): Response {
  if (decision.status === 413 && request.body !== null && !request.bodyUsed) {
    discard(request.body.getReader());
  }
  return decision.body === undefined
    ? empty(decision.status, decision.headers)
    : json(decision.status, decision.body, decision.headers);
}
