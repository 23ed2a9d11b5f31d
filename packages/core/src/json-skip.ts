/**
 * The one JSON-text skipper of the kit: where a JSON value, string or run of white space ends, found
 * without parsing, in one pass. The envelope scanner, the exact-id reader, the batch cutter of the
 * HTTP transport, the trace-context injector and the conformance tool's raw reader all skip with it.
 *
 * Strings are skipped with the runtime's native `indexOf` (a loop in script over each character
 * costs ten times more), a quote being escaped when an odd run of backslashes stands before it in
 * the string; the structure between strings is read one character at a time. Every character is
 * read a bounded number of times, whatever the text: the cost is linear in the text skipped. A
 * quote or backslash byte is never part of a multi-byte UTF-8 character, so the same code skips
 * text and UTF-8 bytes.
 *
 * @module
 */

/** Characters read by the skipper since the module loaded: the unit tests count work with it. */
let steps = 0;

/**
 * How many characters the skipper has read so far (those read by `indexOf` included), for tests
 * that check the cost of a skip by counting work rather than timing it.
 *
 * @returns the running count
 */
export function jsonSkipSteps(): number {
  return steps;
}

/** Whether `c` is JSON white space. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Where the JSON white space at `pos` ends.
 *
 * @param text - the text
 * @param pos - where the white space may begin
 * @returns the index of the first character at or after `pos` that is not white space (the
 *   text's length when there is none)
 * @example
 * ```ts
 * skipJsonSpace('  [1]', 0); // 2
 * ```
 */
export function skipJsonSpace(text: string, pos: number): number {
  const start = pos;
  while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++;
  steps += pos - start + 1;
  return pos;
}

/**
 * The index of the quote that closes a string whose characters begin at `from`, or -1 when the
 * piece ends first. `from` must not follow an escaping backslash of the same string.
 */
export function stringClose(chunk: string | Uint8Array, from: number): number {
  const text = typeof chunk === 'string';
  for (let i = from; ; ) {
    const quote = text ? (chunk as string).indexOf('"', i) : (chunk as Uint8Array).indexOf(0x22, i);
    if (quote === -1) {
      steps += chunk.length - from + 1;
      return -1;
    }
    // Most quotes have no backslash before them: the run is counted only when one is there.
    if (
      quote === i ||
      (text ? (chunk as string).charCodeAt(quote - 1) : chunk[quote - 1]) !== 0x5c ||
      (backslashesBefore(chunk, quote, i) & 1) === 0
    ) {
      steps += quote - from + 1;
      return quote;
    }
    i = quote + 1;
  }
}

/** How many backslashes stand right before `end`, none counted before `from`. */
export function backslashesBefore(chunk: string | Uint8Array, end: number, from: number): number {
  const text = typeof chunk === 'string';
  let at = end;
  while (at > from && (text ? (chunk as string).charCodeAt(at - 1) : chunk[at - 1]) === 0x5c) at--;
  steps += end - at + 1;
  return end - at;
}

/**
 * Where a skip stopped when its piece of text ended inside a value: the open brackets and braces,
 * whether a string is open, and whether its last character was an escaping backslash. A scanner of
 * a message that arrives in pieces keeps one and hands it to each {@link skipNested} and
 * {@link continueString}.
 */
export interface JsonSkipState {
  /** Brackets and braces open. */
  depth: number;
  /** Whether a string is open. */
  inString: boolean;
  /** Whether the string's last character so far is a backslash that escapes the next one. */
  escaped: boolean;
}

/**
 * Goes on through a string that is open at `i` (its opening quote in an earlier piece, or before
 * `i`): the index after its closing quote, or -1 when the piece ends first, `state.escaped` then
 * saying whether the piece ended on an escaping backslash.
 */
export function continueString(
  chunk: string | Uint8Array,
  i: number,
  state: JsonSkipState,
): number {
  if (state.escaped) {
    state.escaped = false;
    i++;
  }
  const n = chunk.length;
  if (i >= n) return -1;
  const close = stringClose(chunk, i);
  if (close !== -1) return close + 1;
  state.escaped = (backslashesBefore(chunk, n, i) & 1) === 1;
  return -1;
}

/**
 * Goes on through an array or object that is open at `i` (`state.depth` brackets and braces
 * open): the index after the bracket or brace that closes it, `state.depth` then 0, or the
 * piece's length when it ends first, `state` then saying where the skip stands.
 */
export function skipNested(chunk: string | Uint8Array, i: number, state: JsonSkipState): number {
  const n = chunk.length;
  if (state.inString) {
    const end = continueString(chunk, i, state);
    if (end === -1) return n;
    state.inString = false;
    i = end;
  }
  const text = typeof chunk === 'string';
  let depth = state.depth;
  let read = 0;
  for (; i < n; i++) {
    read++;
    const c = text ? (chunk as string).charCodeAt(i) : (chunk as Uint8Array)[i]!;
    if (c === 0x22) {
      const close = stringClose(chunk, i + 1);
      if (close === -1) {
        state.inString = true;
        state.escaped = (backslashesBefore(chunk, n, i + 1) & 1) === 1;
        i = n;
        break;
      }
      i = close;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) {
        i++;
        break;
      }
    }
  }
  steps += read;
  state.depth = depth;
  return i;
}

/**
 * Where the JSON string whose opening quote is at `pos` ends.
 *
 * @param text - the text
 * @param pos - the index of the opening quote
 * @returns the index after the closing quote, or -1 when the text ends first
 * @example
 * ```ts
 * skipJsonString('"a\\"b",1', 0); // 6
 * ```
 */
export function skipJsonString(text: string, pos: number): number {
  const close = stringClose(text, pos + 1);
  return close === -1 ? -1 : close + 1;
}

/** The state of {@link skipJsonValue}'s skips. */
const whole: JsonSkipState = { depth: 0, inString: false, escaped: false };

/**
 * Where the JSON value that begins at `pos` (not at white space) ends, read without parsing: a
 * string after its closing quote, an array or object after its closing bracket or brace (nesting
 * counted, not recursed: any depth), a number or literal at the next `,`, `]`, `}`, white space or
 * the text's end. Text that is not JSON is skipped as far as this structure goes; it is not
 * checked.
 *
 * @param text - the text
 * @param pos - the index of the value's first character
 * @returns the index after the value, or -1 when the text ends inside a string, array or object
 * @example
 * ```ts
 * skipJsonValue('[{"a":"]"},2] ,3', 0); // 13
 * skipJsonValue('12 ,3', 0); // 2
 * ```
 */
export function skipJsonValue(text: string, pos: number): number {
  const first = text.charCodeAt(pos);
  if (first === 0x22) return skipJsonString(text, pos);
  if (first === 0x7b || first === 0x5b) {
    // One state for every whole-text skip (each runs to its end before another starts): no
    // allocation per value.
    whole.depth = 1;
    whole.inString = false;
    whole.escaped = false;
    const end = skipNested(text, pos + 1, whole);
    return whole.depth === 0 ? end : -1;
  }
  const start = pos;
  const n = text.length;
  while (pos < n) {
    const c = text.charCodeAt(pos);
    if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) break;
    pos++;
  }
  steps += pos - start + 1;
  return pos;
}
