/**
 * The text of a request body read in chunks.
 *
 * @module
 */

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
