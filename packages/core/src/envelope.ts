/**
 * What a message too large to parse still tells: a bounded scan of its top level for the `id` and
 * `method` members, so that an over-limit request can be answered with its own id and an
 * over-limit notification is never answered.
 *
 * @module
 */
import type { JsonRpcId } from './messages.js';
import { skipString } from './raw-id.js';

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

/** An incremental {@link MessageEnvelope} scanner: push a message's text or bytes in pieces. */
export interface EnvelopeScanner {
  /**
   * Scans the next piece of the message.
   *
   * @param chunk - UTF-8 bytes, or text
   */
  push(chunk: Uint8Array | string): void;
  /**
   * What the pieces pushed so far say.
   *
   * @returns the envelope
   */
  result(): MessageEnvelope;
}

/** Longest id or method text kept; longer ones are unreadable (id `null`, method absent). */
const MAX_CAPTURE = 256;

const START = 0;
const KEY_OR_END = 1;
const IN_KEY = 2;
const COLON = 3;
const VALUE = 4;
const IN_STRING = 5;
const IN_SCALAR = 6;
const NESTED = 7;
const COMMA_OR_END = 8;
const DONE = 9;

const KEY_OTHER = 0;
const KEY_ID = 1;
const KEY_METHOD = 2;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Where the string that is open at `i` ends in `chunk`: the index of its closing quote, found with
 * the runtime's native `indexOf` (a JavaScript loop over each character cost 10 ns a character, 15
 * times `JSON.parse`), or -1 when the chunk ends first. A quote is escaped when an odd run of
 * backslashes stands before it; `i` must not be escaped.
 */
function stringEnd(chunk: Uint8Array | string, text: boolean, i: number): number {
  for (;;) {
    const quote = text ? (chunk as string).indexOf('"', i) : (chunk as Uint8Array).indexOf(0x22, i);
    if (quote === -1) return -1;
    if (backslashesBefore(chunk, text, quote, i) % 2 === 0) return quote;
    i = quote + 1;
  }
}

/** How many backslashes stand right before `end`, none counted before `from`. */
function backslashesBefore(
  chunk: Uint8Array | string,
  text: boolean,
  end: number,
  from: number,
): number {
  let at = end;
  while (at > from && (text ? (chunk as string).charCodeAt(at - 1) : chunk[at - 1]) === 0x5c) at--;
  return end - at;
}

const utf8 = new TextDecoder();

function textOf(codes: number[], bytes: boolean): string {
  return bytes ? utf8.decode(Uint8Array.from(codes)) : String.fromCharCode(...codes);
}

/**
 * Creates an incremental scanner of a message's top level. It keeps at most a few hundred bytes
 * whatever the message's size, and costs one step per byte or character pushed: it only follows
 * strings and nesting depth, and captures the text of the top-level `id` and `method` members.
 *
 * @returns the scanner
 * @example
 * ```ts
 * const scanner = createEnvelopeScanner();
 * scanner.push('{"jsonrpc":"2.0","method":"big","params":["…"],');
 * scanner.push('"id":7}');
 * scanner.result(); // { kind: 'request', id: 7, rawId: undefined, method: 'big' }
 * ```
 */
export function createEnvelopeScanner(): EnvelopeScanner {
  let state = START;
  let bytes = false;
  let key = KEY_OTHER;
  let escaped = false;
  /** Depth inside a nested value (NESTED), and whether a string inside it is open. */
  let depth = 0;
  let nestedString = false;
  /** The key being read, or the id/method value being captured; `undefined` when over the bound. */
  let capture: number[] | undefined;
  let idText: string | undefined;
  let hasId = false;
  let methodText: string | undefined;
  let hasMethod = false;

  const keep = (c: number): void => {
    if (capture !== undefined) {
      if (capture.length < MAX_CAPTURE) capture.push(c);
      else capture = undefined;
    }
  };

  const endValue = (): void => {
    if (key === KEY_ID) {
      hasId = true;
      idText = capture === undefined ? undefined : textOf(capture, bytes);
    } else if (key === KEY_METHOD) {
      hasMethod = true;
      methodText = capture === undefined ? undefined : textOf(capture, bytes);
    }
    capture = undefined;
    state = COMMA_OR_END;
  };

  const step = (c: number): void => {
    switch (state) {
      case START:
        if (isSpace(c)) return;
        state = c === 0x7b ? KEY_OR_END : DONE;
        return;
      case KEY_OR_END:
        if (isSpace(c) || c === 0x2c) return;
        if (c === 0x7d) state = DONE;
        else if (c === 0x22) {
          state = IN_KEY;
          capture = [];
          escaped = false;
        } else state = DONE;
        return;
      case IN_KEY:
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          const name = capture === undefined ? '' : keyName(textOf(capture, bytes));
          key = name === 'id' ? KEY_ID : name === 'method' ? KEY_METHOD : KEY_OTHER;
          capture = undefined;
          state = COLON;
          return;
        }
        keep(c);
        return;
      case COLON:
        if (c === 0x3a) state = VALUE;
        else if (!isSpace(c)) state = DONE;
        return;
      case VALUE:
        if (isSpace(c)) return;
        capture = key === KEY_OTHER ? undefined : [c];
        if (c === 0x22) {
          state = IN_STRING;
          escaped = false;
        } else if (c === 0x7b || c === 0x5b) {
          capture = undefined; // an object or array is no valid id or method
          state = NESTED;
          depth = 1;
          nestedString = false;
          escaped = false;
        } else state = IN_SCALAR;
        return;
      case IN_STRING:
        keep(c);
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) endValue();
        return;
      case IN_SCALAR:
        if (c === 0x2c || c === 0x7d || isSpace(c)) {
          endValue();
          step(c);
          return;
        }
        keep(c);
        return;
      case COMMA_OR_END:
        if (c === 0x2c) state = KEY_OR_END;
        else if (c === 0x7d) state = DONE;
        else if (!isSpace(c)) state = DONE;
        return;
      default:
        return;
    }
  };

  /**
   * Skips through a string whose text is not kept (any value but the id or the method's), from
   * `i`; returns where it stopped (after the closing quote, or the chunk's end).
   */
  const skipString = (chunk: Uint8Array | string, text: boolean, i: number): number => {
    if (escaped) {
      escaped = false;
      i++;
    }
    const n = chunk.length;
    if (i >= n) return n;
    const end = stringEnd(chunk, text, i);
    if (end === -1) {
      escaped = backslashesBefore(chunk, text, n, i) % 2 === 1;
      return n;
    }
    endValue();
    return end + 1;
  };

  /**
   * The bulk of a message is nested values (params): skips through one with the state in locals,
   * from `i`, and returns where it stopped (after the value's end, or the chunk's).
   */
  const skipNested = (chunk: Uint8Array | string, text: boolean, i: number): number => {
    const n = chunk.length;
    let inString = nestedString;
    let esc = escaped;
    let d = depth;
    for (; i < n; i++) {
      const c = text ? (chunk as string).charCodeAt(i) : (chunk as Uint8Array)[i]!;
      if (inString) {
        if (esc) esc = false;
        else if (c === 0x5c) esc = true;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) d++;
      else if (c === 0x7d || c === 0x5d) {
        d--;
        if (d === 0) {
          i++;
          break;
        }
      }
    }
    nestedString = inString;
    escaped = esc;
    depth = d;
    if (d === 0) endValue(); // an object or array: no readable id or method
    return i;
  };

  return {
    push(chunk) {
      const text = typeof chunk === 'string';
      if (!text) bytes = true;
      const n = chunk.length;
      let i = 0;
      while (i < n && state !== DONE) {
        if (state === NESTED) i = skipNested(chunk, text, i);
        else if (state === IN_STRING && capture === undefined) i = skipString(chunk, text, i);
        else step(text ? (chunk as string).charCodeAt(i++) : (chunk as Uint8Array)[i++]!);
      }
    },
    result() {
      if (state === IN_SCALAR) endValue();
      const method = methodText === undefined ? undefined : stringValue(methodText);
      if (!hasId) {
        return {
          kind: hasMethod ? 'notification' : 'unknown',
          id: null,
          rawId: undefined,
          method,
        };
      }
      const [id, rawId] = idValue(idText);
      return { kind: hasMethod ? 'request' : 'response', id, rawId, method };
    },
  };
}

/** A key's name from its raw text (escapes resolved). */
function keyName(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return '';
  }
}

/** A method from its source text (with quotes), or `undefined` unless it is a JSON string. */
function stringValue(text: string): string | undefined {
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
function plainString(text: string): boolean {
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
function idValue(text: string | undefined): [JsonRpcId, string | undefined] {
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

/** How core's serializers begin an answer or a request: the id first. */
const ID_HEAD = '{"jsonrpc":"2.0","id":';
/** How core's serializers begin a notification: the method first. */
const METHOD_HEAD = '{"jsonrpc":"2.0","method":';

/**
 * Where the JSON string or scalar at `start` ends (the index after it), reading nothing past it;
 * -1, or the text's length or more, when the text ends first.
 */
function tokenEnd(text: string, start: number): number {
  return text.charCodeAt(start) === 0x22 ? skipString(text, start) : text.indexOf(',', start);
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

/**
 * Scans the top level of a message's text for its `id` and `method`, without parsing it: for a
 * message too large to parse, so that it can still be answered with its own id. One step per
 * character, a few hundred characters kept.
 *
 * @param text - the message text (not necessarily valid JSON)
 * @returns what the scan found
 * @example
 * ```ts
 * scanEnvelope('{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}').id; // 'a'
 * scanEnvelope('{"jsonrpc":"2.0","method":"didOpen","params":{}}').kind; // 'notification'
 * ```
 */
export function scanEnvelope(text: string): MessageEnvelope {
  const scanner = createEnvelopeScanner();
  scanner.push(text);
  return scanner.result();
}
