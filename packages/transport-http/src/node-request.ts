/**
 * Reading a node:http request as the HTTP handlers do: a header as text, a body a body parser
 * already read.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/** One request header as text (node:http joins repeated ones, except `set-cookie`). */
export function headerOf(headers: IncomingMessage['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body a body parser left on `req.body`, as text. */
export function parsedBody(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.length).toString('utf8');
  if (typeof body === 'object' && body !== null) {
    try {
      return JSON.stringify(body);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
