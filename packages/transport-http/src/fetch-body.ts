/**
 * Reading a fetch `Request`'s body, bounded by size and time, and dropping what is left of one.
 * Imports no `node:` module.
 *
 * @module
 */
import { type BodyFailure, TIMED_OUT, TOO_LARGE } from './body-failure.js';
import { DISCARD_BYTES, DISCARD_TIMEOUT } from './constants.js';

const decoder = new TextDecoder();

/**
 * Reads and drops what is left of a body in the background, for a bounded time and byte count,
 * then cancels it: where the runtime lets the answer go out while the body is still arriving, the
 * client can read it instead of having its writes refused.
 */
export function discard(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  let dropped = 0;
  const stop = (): void => {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  };
  const timer = setTimeout(stop, DISCARD_TIMEOUT);
  (timer as { unref?: () => void }).unref?.();
  const next = (): void => {
    reader.read().then(
      ({ done, value }) => {
        if (done) {
          clearTimeout(timer);
          return;
        }
        dropped += value.byteLength;
        if (dropped > DISCARD_BYTES) stop();
        else next();
      },
      () => clearTimeout(timer),
    );
  };
  next();
}

/** Reads the body as UTF-8 text, never holding more than `max` bytes. */
export async function readBody(
  request: Request,
  max: number,
  timeout: number,
): Promise<string | BodyFailure> {
  const stream = request.body;
  if (stream === null) return '';
  const reader = stream.getReader();
  let timedOut = false;
  const timer =
    timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          reader.cancel().catch(() => {});
        }, timeout)
      : undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return TIMED_OUT;
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        discard(reader);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } catch (error) {
    if (timedOut) return TIMED_OUT;
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(all);
}
