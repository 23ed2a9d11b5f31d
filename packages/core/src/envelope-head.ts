/**
 * The reader of a message's head as core's serializers write it (`{"jsonrpc":"2.0","id":…`): the
 * envelope or the id of a text this process serialized, read from its first tokens whatever the
 * size of its result or params.
 *
 * @module
 */
import { idValue, MAX_CAPTURE, type MessageEnvelope, stringValue } from './envelope.js';
import { scanEnvelope } from './envelope-scanner.js';
import { skipJsonString } from './json-skip.js';
import type { JsonRpcId } from './messages.js';

/** How core's serializers begin an answer or a request: the id first. */
const ID_HEAD = '{"jsonrpc":"2.0","id":';
/** How core's serializers begin a notification: the method first. */
const METHOD_HEAD = '{"jsonrpc":"2.0","method":';

/**
 * Where the JSON string or scalar at `start` ends (the index after it), reading nothing past it;
 * -1, or the text's length or more, when the text ends first.
 */
function tokenEnd(text: string, start: number): number {
  return text.charCodeAt(start) === 0x22 ? skipJsonString(text, start) : text.indexOf(',', start);
}

/** Where the method named at `start` ends, when the object goes on or closes right after it. */
function methodEnd(text: string, start: number): number {
  const end = tokenEnd(text, start);
  const next = end === -1 ? -1 : text.charCodeAt(end);
  return next === 0x2c || next === 0x7d ? end : -1;
}

/**
 * The envelope of a single message as core's serializers write it, read from its head alone:
 * `{"jsonrpc":"2.0","id":…` then `"result"`, `"error"` or `"method"`, or `{"jsonrpc":"2.0","method":…`.
 * For a text this process serialized (an answer or request on its way out), whatever the size of
 * its result or params; what {@link scanEnvelope} reads of the same text. `undefined` for a text
 * that does not begin so: scan that one whole.
 *
 * @param text - a message text, usually one core serialized
 * @returns the envelope, or `undefined` when the head is not core's
 * @example
 * ```ts
 * scanHead('{"jsonrpc":"2.0","id":7,"result":["…a megabyte…"]}'); // { kind: 'response', id: 7, … }
 * scanHead('{"id":7,"jsonrpc":"2.0","result":1}'); // undefined
 * ```
 */
export function scanHead(text: string): MessageEnvelope | undefined {
  if (text.startsWith(ID_HEAD)) {
    const idStart = ID_HEAD.length;
    const idEnd = tokenEnd(text, idStart);
    if (idEnd === -1) return undefined;
    if (text.startsWith(',"result":', idEnd) || text.startsWith(',"error":', idEnd)) {
      return headEnvelope(text, 'response', idStart, idEnd, idEnd, idEnd);
    }
    if (!text.startsWith(',"method":', idEnd)) return undefined;
    const end = methodEnd(text, idEnd + 10);
    return end === -1 ? undefined : headEnvelope(text, 'request', idStart, idEnd, idEnd + 10, end);
  }
  if (!text.startsWith(METHOD_HEAD)) return undefined;
  const end = methodEnd(text, METHOD_HEAD.length);
  return end === -1 ? undefined : headEnvelope(text, 'notification', 0, 0, METHOD_HEAD.length, end);
}

/**
 * An id's text as `stringifyId` writes it back for the id it reads as: an integer of at most 15
 * digits other than `-0`, or a string `JSON.stringify` writes as it is (no escape, no control
 * character, no surrogate).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CANONICAL_ID = /^(?:0|-?[1-9]\d{0,14}|"[^"\\\u0000-\u001f\ud800-\udfff]*")$/;

/**
 * The id of a request or an answer core wrote, as JSON text, read from its head alone: the text
 * `stringifyId` gives for the id {@link scanEnvelope} reads from the whole text, so a key
 * read here from one message and one read by a scan from another agree. `undefined` when the
 * text does not begin as core writes a message of that `kind` or its id is in another form (`1.0`,
 * `-0`, an escape, more than 15 digits): scan that one. Reads only the id: for routing a message
 * by its id (an answer to its request, a request to its caller) without parsing it.
 *
 * @param text - a message text
 * @param kind - what it must be: a request (the method after the id) or a response
 * @returns the id's JSON text, or `undefined`
 * @example
 * ```ts
 * headIdText('{"jsonrpc":"2.0","id":7,"method":"add","params":[1,2]}', 'request'); // '7'
 * headIdText('{"jsonrpc":"2.0","id":"a","result":3}', 'response'); // '"a"'
 * headIdText('{"jsonrpc":"2.0","id":1.0,"result":3}', 'response'); // undefined
 * ```
 */
export function headIdText(text: string, kind: 'request' | 'response'): string | undefined {
  if (!text.startsWith(ID_HEAD)) return undefined;
  const start = ID_HEAD.length;
  // An id of core's form has no escape: a string ends at the next quote (one with an escape is
  // refused below), a number at the next comma.
  const end =
    text.charCodeAt(start) === 0x22 ? text.indexOf('"', start + 1) + 1 : text.indexOf(',', start);
  if (end <= start || end - start > MAX_CAPTURE) return undefined;
  // What follows the id as core writes a message of that kind.
  const follows =
    kind === 'request'
      ? text.startsWith(',"method":', end)
      : text.startsWith(',"result":', end) || text.startsWith(',"error":', end);
  if (!follows) return undefined;
  const token = text.slice(start, end);
  return CANONICAL_ID.test(token) ? token : undefined;
}

/**
 * The envelope of a head: its id spans `idStart`–`idEnd` (unless a notification), its method
 * `methodStart`–`end` (unless a response). Tokens as core writes them (a string, or a number
 * without white space) are read as they are; any other head is scanned, closed, as the whole text
 * would be.
 */
function headEnvelope(
  text: string,
  kind: 'request' | 'notification' | 'response',
  idStart: number,
  idEnd: number,
  methodStart: number,
  end: number,
): MessageEnvelope {
  const hasId = kind !== 'notification';
  const hasMethod = kind !== 'response';
  if (
    (hasId && !plainToken(text, idStart, idEnd)) ||
    (hasMethod && !plainToken(text, methodStart, end))
  ) {
    return scanEnvelope(`${text.slice(0, end)}}`);
  }
  const [id, rawId] = hasId ? idValue(captured(text, idStart, idEnd)) : NO_ID;
  const methodText = hasMethod ? captured(text, methodStart, end) : undefined;
  const method = methodText === undefined ? undefined : stringValue(methodText);
  return { kind, id, rawId, method };
}

/** The id of a message without one. */
const NO_ID: [JsonRpcId, string | undefined] = [null, undefined];

/**
 * Whether the token from `start` to `end` reads alone as the scan reads it: a string, or a run of
 * the characters of numbers and literals (no white space, brace or bracket to end or nest it).
 */
function plainToken(text: string, start: number, end: number): boolean {
  if (start >= end) return false;
  if (text.charCodeAt(start) === 0x22) return true;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    const numeric = (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e;
    if (!numeric && !(c >= 0x61 && c <= 0x7a) && !(c >= 0x41 && c <= 0x5a)) return false;
  }
  return true;
}

/** A token's text as the scan keeps it: `undefined` beyond {@link MAX_CAPTURE} characters. */
function captured(text: string, start: number, end: number): string | undefined {
  return end - start > MAX_CAPTURE ? undefined : text.slice(start, end);
}
