/**
 * What a message's top level tells without parsing it (its kind, id and method), and how the
 * tokens of its `id` and `method` read: shared by the scanner of a whole message
 * (`envelope-scanner.ts`) and the reader of a head core wrote (`envelope-head.ts`).
 *
 * @module
 */
import type { JsonRpcId } from './messages.js';

/**
 * The top level of a message that was not parsed (it was over a size limit), as a scan found it.
 *
 * - `request`: an object with an `id` member and a `method` member; answer it with `id` (`null`
 *   when the id could not be read).
 * - `notification`: an object with a `method` and no `id`; never answer it.
 * - `response`: an object with an `id` and no `method`; a peer's answer to one of ours.
 * - `unknown`: anything else (a batch, an object with neither member, text that is not JSON);
 *   answer with id `null`.
 */
export interface MessageEnvelope {
  /** What the message is, as far as its top level tells (see above). */
  readonly kind: 'request' | 'notification' | 'response' | 'unknown';
  /** The id to answer with: the message's own where it could be read, else `null`. */
  readonly id: JsonRpcId;
  /** The id's exact source text when a JavaScript number cannot hold it exactly. */
  readonly rawId: string | undefined;
  /** The method, when the message named one in a string of at most 256 characters. */
  readonly method: string | undefined;
}

/** Longest id or method text kept; longer ones are unreadable (id `null`, method absent). */
export const MAX_CAPTURE = 256;

/** A method from its source text (with quotes), or `undefined` unless it is a JSON string. */
export function stringValue(text: string): string | undefined {
  if (text.charCodeAt(0) !== 0x22) return undefined;
  if (plainString(text)) return text.slice(1, -1);
  try {
    return JSON.parse(text) as string;
  } catch {
    return undefined;
  }
}

/**
 * Whether a quoted text is a JSON string with nothing to unescape: closed, with no backslash and
 * no control character inside (the most method names and string ids), so it reads as its inside.
 */
export function plainString(text: string): boolean {
  const last = text.length - 1;
  if (last < 1 || text.charCodeAt(last) !== 0x22) return false;
  for (let i = 1; i < last; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** Whether a text is a JSON integer of at most 15 digits: a number a JavaScript number holds. */
function smallInteger(text: string): boolean {
  const start = text.charCodeAt(0) === 0x2d ? 1 : 0;
  const digits = text.length - start;
  if (digits < 1 || digits > 15) return false;
  if (digits > 1 && text.charCodeAt(start) === 0x30) return false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** A valid id (and its exact text when a number loses precision) from its source text. */
export function idValue(text: string | undefined): [JsonRpcId, string | undefined] {
  if (text === undefined) return [null, undefined];
  if (smallInteger(text)) return [Number(text), undefined];
  if (text.charCodeAt(0) === 0x22 && plainString(text)) return [text.slice(1, -1), undefined];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [null, undefined];
  }
  if (typeof value === 'string' || value === null) return [value, undefined];
  if (typeof value !== 'number') return [null, undefined];
  // As `parse` reads it: a number beyond what a double holds (`1e400`) is an id by its text.
  return [value, Number.isSafeInteger(value) ? undefined : text];
}
