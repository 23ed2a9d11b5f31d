/**
 * The routing key of a queued message read from its head: both sides of the queue transport look
 * at every message they pass (the caller: does it wait for an answer? the worker: which request
 * does an answer close?), and a message core wrote says so in its first few characters. Reading
 * them costs no parse and no object, where `scanHead` makes an envelope and a number of each id.
 *
 * @module
 */

/** How core writes a message with an id: its id right after this. */
const ID_HEAD = '{"jsonrpc":"2.0","id":';

/** What follows the id of a request core wrote. */
export const REQUEST_NEXT: readonly string[] = [',"method":'];
/** What follows the id of an answer core wrote. */
export const ANSWER_NEXT: readonly string[] = [',"result":', ',"error":'];

/**
 * Where the id of `text` ends, when core wrote it with an id in the form `stringifyId` gives it
 * back (an integer of at most 15 digits, or a string without escapes or surrogates) followed by
 * one of `next`; -1 for any other text (read it with `scanHead` or `scanEnvelope`). Since the
 * key read here is the id's `stringifyId` text, a side that reads one message from its head and
 * the other side's message whole still agree on the key. O(length of the id).
 *
 * @param text - the message
 * @param next - what must follow the id ({@link REQUEST_NEXT}, {@link ANSWER_NEXT})
 * @returns the index after the id, or -1
 */
export function headIdEnd(text: string, next: readonly string[]): number {
  if (!text.startsWith(ID_HEAD)) return -1;
  const start = ID_HEAD.length;
  const first = text.charCodeAt(start);
  let end = start + 1;
  if (first === 0x22 /* " */) {
    for (; ; end++) {
      if (end >= text.length) return -1;
      const c = text.charCodeAt(end);
      if (c === 0x22) break;
      // Escapes, control characters and surrogates: `JSON.stringify` may write them otherwise.
      if (c < 0x20 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return -1;
    }
    end++;
  } else {
    const digits = first === 0x2d /* - */ ? start + 1 : start;
    end = digits;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    const count = end - digits;
    // Not `-0`, not a leading zero, not beyond what a double holds exactly.
    if (count < 1 || count > 15) return -1;
    if (text.charCodeAt(digits) === 0x30 && (count > 1 || digits > start)) return -1;
  }
  for (const member of next) if (text.startsWith(member, end)) return end;
  return -1;
}

/**
 * The key (the id's JSON text) of a message core wrote, read from its head; `undefined` for any
 * other text (see {@link headIdEnd}).
 *
 * @param text - the message
 * @param next - what must follow the id
 * @returns the id's text, or `undefined`
 */
export function headKey(text: string, next: readonly string[]): string | undefined {
  const end = headIdEnd(text, next);
  return end === -1 ? undefined : text.slice(ID_HEAD.length, end);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
