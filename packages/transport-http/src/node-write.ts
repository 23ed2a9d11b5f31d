/**
 * Writing the HTTP handlers' answers on a node:http `ServerResponse`: JSON, empty, and an answer
 * sent before the body was read.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DISCARD_BYTES, DISCARD_TIMEOUT } from './constants.js';

/** Writes the head of a JSON answer: type, length, `extra`, and `Connection: close` if asked. */
function writeJsonHead(
  res: ServerResponse,
  status: number,
  body: string,
  extra: readonly string[],
  close: boolean,
): void {
  const headers: string[] = [
    'content-type',
    'application/json',
    'content-length',
    String(Buffer.byteLength(body)),
  ];
  for (let i = 0; i < extra.length; i++) headers.push(extra[i]!);
  if (close) headers.push('connection', 'close');
  res.writeHead(status, headers);
}

/**
 * Bodies at least this long (UTF-16 units) are written after their head rather than with it:
 * node:http joins the head and a string body into one new string when both go out in one write,
 * a copy of the whole body that costs nothing for small answers and one more copy of a big one.
 */
const SEPARATE_HEAD_LENGTH = 64 * 1024;

/**
 * Writes a JSON body with one `writeHead` and one `end` (the head on its own first for a big
 * body, so that the body is not copied to join it).
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: string,
  extra: readonly string[],
  close: boolean,
): void {
  if (res.destroyed || res.headersSent) return;
  writeJsonHead(res, status, body, extra, close);
  if (body.length >= SEPARATE_HEAD_LENGTH) res.flushHeaders();
  res.end(body);
}

/**
 * Answers before the body was read, then closes gracefully: the answer goes out at once, the rest
 * of the body is read and dropped for a bounded time and byte count (a client that does not wait
 * for `100 Continue` is still writing, and a socket closed under its writes resets the
 * connection before it can read the answer), then the connection is closed.
 */
export function writeEarly(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  extra: readonly string[],
): void {
  if (res.destroyed || res.headersSent) return;
  if (req.complete) {
    writeJson(res, status, body, extra, false);
    return;
  }
  writeJsonHead(res, status, body, extra, true);
  // The answer is complete on the wire (Content-Length); ending the response is what closes the
  // socket, so that waits until the body is drained or a bound is reached.
  res.write(body);
  let dropped = 0;
  const done = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', done);
    req.off('close', done);
    res.end();
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > DISCARD_BYTES) done();
  };
  const timer = setTimeout(done, DISCARD_TIMEOUT);
  timer.unref();
  req.on('data', onData);
  req.on('end', done);
  req.on('close', done);
  req.resume();
}

/** Writes an answer without a body. */
export function writeEmpty(res: ServerResponse, status: number, extra: readonly string[]): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, extra.length === 0 ? undefined : (extra as string[]));
  res.end();
}
