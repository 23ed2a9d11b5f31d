/**
 * UTF-8 size checks without `Buffer` (the server runs in browsers and edge runtimes too), and
 * encoding that uses Node's pooled `Buffer` where there is one.
 *
 * @module
 */

/** The part of Node's `Buffer` used here: pooled allocation of small byte arrays. */
interface PooledBuffer {
  from(text: string): Uint8Array;
  allocUnsafe(size: number): Uint8Array;
}

const pooled = (globalThis as { Buffer?: PooledBuffer }).Buffer;
const encoder: TextEncoder | undefined = pooled === undefined ? new TextEncoder() : undefined;

/**
 * The UTF-8 bytes of a text. Internal.
 *
 * @param text - the text
 * @returns its bytes (a `Buffer` where the runtime has one)
 */
export function utf8Bytes(text: string): Uint8Array {
  return pooled !== undefined ? pooled.from(text) : (encoder as TextEncoder).encode(text);
}

/**
 * Two byte arrays, one after the other, in a new one. Internal.
 *
 * @param head - the first bytes
 * @param tail - the bytes after them
 * @returns `head` then `tail`
 */
export function joinBytes(head: Uint8Array, tail: Uint8Array): Uint8Array {
  const size = head.length + tail.length;
  const joined = pooled !== undefined ? pooled.allocUnsafe(size) : new Uint8Array(size);
  joined.set(head, 0);
  joined.set(tail, head.length);
  return joined;
}

/**
 * Whether `text` takes more than `max` bytes in UTF-8. Cheap bounds first: a UTF-16 code unit
 * takes 1 to 3 bytes (a surrogate pair, two units, takes 4), so the loop only runs when the
 * length alone cannot decide, and stops as soon as the limit is passed.
 *
 * @param text - the text
 * @param max - the limit in bytes
 * @returns `true` when the text is larger than `max` bytes
 * @example
 * ```ts
 * exceedsUtf8Bytes('é', 1); // true: "é" takes 2 bytes
 * ```
 */
export function exceedsUtf8Bytes(text: string, max: number): boolean {
  const length = text.length;
  if (length > max) return true;
  if (length * 3 <= max) return false;
  let bytes = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3; // BMP, or a lone surrogate (encoded as U+FFFD, 3 bytes)
    if (bytes > max) return true;
  }
  return false;
}
