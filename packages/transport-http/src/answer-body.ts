/**
 * Reading an HTTP answer's body with a size limit: the bytes are counted as they arrive, and the
 * exchange is dropped as soon as they pass it. Imports no `node:` module.
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';

/**
 * The error of an answer larger than the client takes.
 *
 * @param status - the HTTP status of the answer
 * @param max - the limit, in bytes
 * @returns the error (`TRANSPORT_ERROR`)
 * @example
 * ```ts
 * answerTooLarge(200, 1024).message; // 'HTTP 200 answer too large: over maxMessageBytes (1024 bytes)'
 * ```
 */
export function answerTooLarge(status: number, max: number): TransportError {
  return new TransportError(
    `HTTP ${status} answer too large: over maxMessageBytes (${max} bytes)`,
    {
      status,
    },
  );
}

/**
 * Whether an answer's `Content-Length` says it is larger than `max` bytes (a missing or odd
 * header says nothing: the bytes are counted as they come).
 *
 * @param length - the header's value, or `null`/`undefined`
 * @param max - the limit, in bytes
 * @returns `true` when the declared length passes the limit
 * @example
 * ```ts
 * declaredTooLarge('419430400', 16 * 1024 * 1024); // true
 * ```
 */
export function declaredTooLarge(length: string | null | undefined, max: number): boolean {
  if (length === null || length === undefined) return false;
  const declared = Number(length);
  return declared > max;
}

/** One decoder for every answer: `decode()` without `stream` keeps no state between calls. */
const decoder = /* @__PURE__ */ new TextDecoder();

/**
 * The body of a fetch `Response` as UTF-8 text, read chunk by chunk: once more than `max` bytes
 * came (or `Content-Length` says more will), the body is cancelled, which aborts the exchange
 * (fetch closes its connection), and the read fails. An abort of the fetch's signal fails the read
 * too, so a timeout stops an endless body.
 *
 * @param response - the answer
 * @param max - the most bytes taken
 * @returns the text (`''` for no body)
 * @throws TransportError (`TRANSPORT_ERROR`) when the body passes `max` bytes
 * @example
 * ```ts
 * const text = await readAnswerText(await fetch(url, init), 16 * 1024 * 1024);
 * ```
 */
export async function readAnswerText(response: Response, max: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  if (declaredTooLarge(response.headers.get('content-length'), max)) {
    await body.cancel().catch(() => undefined);
    throw answerTooLarge(response.status, max);
  }
  const reader = body.getReader();
  let first: Uint8Array | undefined;
  let rest: Uint8Array[] | undefined;
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw answerTooLarge(response.status, max);
      }
      if (first === undefined) first = value;
      else if (rest === undefined) rest = [value];
      else rest.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (first === undefined) return '';
  if (rest === undefined) return decoder.decode(first);
  const all = new Uint8Array(size);
  all.set(first, 0);
  let at = first.byteLength;
  for (const chunk of rest) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return decoder.decode(all);
}
