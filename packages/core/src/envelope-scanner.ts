/**
 * The streaming scanner of a message too large to parse: a bounded scan of its top level, in
 * pieces of text or bytes, for the `id` and `method` members, so that an over-limit request can be
 * answered with its own id and an over-limit notification is never answered.
 *
 * @module
 */
import { idValue, MAX_CAPTURE, type MessageEnvelope, stringValue } from './envelope.js';
import { continueString, type JsonSkipState, skipNested } from './json-skip.js';

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
  /** Where the skip of a string or nested value (IN_STRING, NESTED) stands between pieces. */
  const skip: JsonSkipState = { depth: 0, inString: false, escaped: false };
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
          skip.escaped = false;
        } else state = DONE;
        return;
      case IN_KEY:
        if (skip.escaped) skip.escaped = false;
        else if (c === 0x5c) skip.escaped = true;
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
          skip.escaped = false;
        } else if (c === 0x7b || c === 0x5b) {
          capture = undefined; // an object or array is no valid id or method
          state = NESTED;
          skip.depth = 1;
          skip.inString = false;
          skip.escaped = false;
        } else state = IN_SCALAR;
        return;
      case IN_STRING:
        keep(c);
        if (skip.escaped) skip.escaped = false;
        else if (c === 0x5c) skip.escaped = true;
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
   * Skips through a string whose text is not kept (any value but the id's or the method's), from
   * `i`; returns where it stopped (after the closing quote, or the chunk's end).
   */
  const skipString = (chunk: Uint8Array | string, i: number): number => {
    const end = continueString(chunk, i, skip);
    if (end === -1) return chunk.length;
    endValue();
    return end;
  };

  /**
   * The bulk of a message is nested values (params): skips through one from `i`, and returns where
   * it stopped (after the value's end, or the chunk's).
   */
  const skipValue = (chunk: Uint8Array | string, i: number): number => {
    i = skipNested(chunk, i, skip);
    if (skip.depth === 0) endValue(); // an object or array: no readable id or method
    return i;
  };

  return {
    push(chunk) {
      const text = typeof chunk === 'string';
      if (!text) bytes = true;
      const n = chunk.length;
      let i = 0;
      while (i < n && state !== DONE) {
        if (state === NESTED) i = skipValue(chunk, i);
        else if (state === IN_STRING && capture === undefined) i = skipString(chunk, i);
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
