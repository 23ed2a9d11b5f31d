/**
 * UTF-8 sizes and encoding for runtimes with and without `Buffer` (the server runs in browsers and
 * edge runtimes too): Node's `Buffer` where there is one, `TextEncoder` elsewhere.
 *
 * @module
 */

/** The part of Node's `Buffer` used here: pooled allocation and byte counting. */
interface PooledBuffer {
  from(text: string): Uint8Array;
  allocUnsafe(size: number): Uint8Array;
  byteLength(text: string, encoding: 'utf8'): number;
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

/** Code units encoded per step when counting without `Buffer`. */
const STEP = 8192;
/** Where a step is encoded: 3 bytes a code unit, and room for a surrogate pair's second half. */
let scratch: Uint8Array | undefined;

/**
 * The UTF-8 size of a text through `TextEncoder.encodeInto`, a step at a time into one small
 * scratch array, for runtimes without `Buffer`. A step never ends between the two halves of a
 * surrogate pair, so a pair counts 4 bytes and a lone surrogate 3 (it is encoded as U+FFFD), as
 * `Buffer.byteLength` counts them. Internal; exported for tests.
 *
 * @param text - the text
 * @returns its size in UTF-8 bytes
 */
export function encodedLength(text: string): number {
  const utf8 = encoder ?? new TextEncoder();
  scratch ??= new Uint8Array(3 * STEP + 3);
  const length = text.length;
  let bytes = 0;
  for (let start = 0; start < length; ) {
    let end = Math.min(start + STEP, length);
    const last = text.charCodeAt(end - 1);
    if (end < length && last >= 0xd800 && last <= 0xdbff) end++;
    bytes += utf8.encodeInto(text.slice(start, end), scratch).written;
    start = end;
  }
  return bytes;
}

/**
 * Whether `text` takes more than `max` bytes in UTF-8. Cheap bounds first: a UTF-16 code unit
 * takes 1 to 3 bytes (a surrogate pair, two units, takes 4), so the text is only measured when
 * its length alone cannot decide, and then natively: `Buffer.byteLength` where the runtime has
 * `Buffer` (tens of picoseconds a byte), `TextEncoder.encodeInto` elsewhere. A loop over the code
 * units in JavaScript cost 2.5 ns a byte, more than parsing the text.
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
  return (pooled !== undefined ? pooled.byteLength(text, 'utf8') : encodedLength(text)) > max;
}
