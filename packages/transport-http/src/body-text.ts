/**
 * The text of a request body read in chunks, and the chunks of one being read.
 *
 * @module
 */
import type { Deadline } from './deadlines.js';

/**
 * Decodes a body read in chunks as UTF-8. The joined buffer is a temporary of this frame and
 * dies when it returns: call it from a frame that is not on the stack while the text is handled.
 *
 * @param first - the first chunk, if any
 * @param rest - the chunks after it, if any
 * @param size - the bytes in all chunks
 * @returns the text (`''` for no chunk)
 * @example
 * ```ts
 * bodyText(Buffer.from('{"a"'), [Buffer.from(':1}')], 7); // '{"a":1}'
 * ```
 */
export function bodyText(
  first: Buffer | undefined,
  rest: readonly Buffer[] | undefined,
  size: number,
): string {
  if (first === undefined) return '';
  if (rest === undefined) return first.toString('utf8');
  return Buffer.concat([first, ...rest], size).toString('utf8');
}

/**
 * A request body being read on node:http: its chunks so far and its entry in the handler's
 * {@link Deadline} list. The plain and the streaming handler each make one object per request
 * from a subclass, which adds what the request needs beyond its body.
 */
export abstract class ChunkedBody implements Deadline {
  due = -1;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  first: Buffer | undefined = undefined;
  rest: Buffer[] | undefined = undefined;
  size = 0;

  abstract expire(): void;

  /**
   * Keeps a chunk, unless the body would pass `max` bytes with it.
   *
   * @returns `false` when the body is too large (the chunk is not kept)
   */
  keep(chunk: Buffer, max: number): boolean {
    this.size += chunk.length;
    if (this.size > max) return false;
    if (this.first === undefined) this.first = chunk;
    else if (this.rest === undefined) this.rest = [chunk];
    else this.rest.push(chunk);
    return true;
  }

  /**
   * The body as text, letting go of the chunks. Call it in a frame of its own: a chunk or the
   * joined buffer left in the frame that handles the text would keep a copy of a big body alive
   * until the answer is written.
   */
  takeText(): string {
    const text = bodyText(this.first, this.rest, this.size);
    this.first = this.rest = undefined;
    return text;
  }
}
