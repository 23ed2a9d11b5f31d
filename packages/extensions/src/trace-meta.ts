/**
 * Adding trace context to the `params._meta` of outgoing JSON-RPC text, without parsing and
 * re-serializing it: a scan finds where to insert, and everything else is copied byte for byte
 * (large integers in ids and params keep every digit).
 *
 * @module
 */
import { skipJsonSpace, skipJsonString, skipJsonValue } from '@jsonrpc-kit/core/engine';

/** The W3C trace context (and whatever else a propagator adds, such as `baggage`). */
export type TraceCarrier = Record<string, string>;

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Scans the object opening at `open`. For each of `keys`, `found[k]` becomes the index where its
 * value starts (or stays -1). With `early`, the scan stops once every key is found.
 *
 * @returns the index of the closing brace (or, stopped early, of the last key's value), or -1 when
 *   the text is not a well-formed object
 */
function scanObject(
  text: string,
  open: number,
  keys: readonly string[],
  found: number[],
  early = false,
): number {
  found.fill(-1);
  let missing = keys.length;
  let i = skipJsonSpace(text, open + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return i;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return -1;
    const keyEnd = skipJsonString(text, i);
    if (keyEnd < 0) return -1;
    const keyLength = keyEnd - i - 2;
    i = skipJsonSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return -1;
    const value = skipJsonSpace(text, i + 1);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (key.length === keyLength && text.startsWith(key, keyEnd - 1 - keyLength)) {
        if (found[k]! < 0) missing--;
        found[k] = value;
      }
    }
    if (early && missing === 0) return value;
    i = skipJsonValue(text, value);
    if (i < 0) return -1;
    i = skipJsonSpace(text, i);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return i;
    if (c !== COMMA) return -1;
    i = skipJsonSpace(text, i + 1);
  }
}

function isEmptyObject(text: string, open: number): boolean {
  return text.charCodeAt(skipJsonSpace(text, open + 1)) === CLOSE_BRACE;
}

function methodAt(text: string, at: number): string | undefined {
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  const end = skipJsonString(text, at);
  if (end < 0) return undefined;
  const raw = text.slice(at + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(at, end)) as string;
  } catch {
    return undefined;
  }
}

const MESSAGE_KEYS = ['method', 'params'] as const;
const PARAMS_KEYS = ['_meta'] as const;
const META_KEYS = ['traceparent'] as const;

/**
 * Adds a trace carrier to the `params._meta` of every request and notification in `text` (one
 * message or a batch) whose params are an object (by name). An existing `_meta` object keeps its
 * members and gains the carrier's; one that already holds a `traceparent` is left alone, as are
 * by-position params, messages without params, responses, a `_meta` that is not an object, and
 * text that the scan finds is not JSON (the other side answers malformed text as usual, edited or
 * not). Nothing else in the text changes: no parse, no re-serialization. A lone message is read
 * only as far as `method` and `params`, and its params are walked only when they hold `"_meta"`.
 *
 * @param text - one serialized message or batch
 * @param carrier - the members to add (`traceparent`, `tracestate`, …); empty: `text` as is
 * @param filter - which methods get the carrier (default: all)
 * @returns the text with the carrier added where it applies
 * @example
 * ```ts
 * injectTraceContext('{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1}}', {
 *   traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
 * });
 * // '{"jsonrpc":"2.0","id":1,"method":"add","params":{"_meta":{"traceparent":"00-…-01"},"a":1}}'
 * ```
 */
export function injectTraceContext(
  text: string,
  carrier: Readonly<TraceCarrier>,
  filter?: (method: string) => boolean,
): string {
  let members = '';
  for (const name of Object.keys(carrier)) {
    members +=
      (members === '' ? '' : ',') + JSON.stringify(name) + ':' + JSON.stringify(carrier[name]);
  }
  if (members === '') return text;
  const inserts: (number | string)[] = [];
  const message: number[] = [-1, -1];
  const params: number[] = [-1];
  const meta: number[] = [-1];
  /**
   * The first `"_meta"` at or after the last search's start, or -1 for none after it. Members come
   * in order, so one search serves all those before the match: the text is searched once in all,
   * not once per member.
   */
  let metaFrom = -1;
  let metaAt = -1;
  const nextMeta = (from: number): number => {
    if (metaFrom < 0 || (metaAt >= 0 && metaAt < from)) {
      metaFrom = from;
      metaAt = text.indexOf('"_meta"', from);
    }
    return metaAt;
  };

  /**
   * Handles the message object opening at `open`; returns its closing brace, or -1. A lone
   * message (`single`) is scanned only as far as needed: its closing brace is not returned.
   */
  const visit = (open: number, single: boolean): number => {
    const close = scanObject(text, open, MESSAGE_KEYS, message, single);
    if (close < 0) return -1;
    const [methodStart, paramsStart] = message as [number, number];
    if (methodStart < 0 || paramsStart < 0 || text.charCodeAt(paramsStart) !== OPEN_BRACE) {
      return close;
    }
    if (filter !== undefined) {
      const method = methodAt(text, methodStart);
      if (method === undefined || !filter(method)) return close;
    }
    // Most params hold no "_meta" at all: then there is no need to walk them.
    const anyMeta = nextMeta(paramsStart);
    if (anyMeta < 0 || (!single && anyMeta > close)) params[0] = -1;
    else if (scanObject(text, paramsStart, PARAMS_KEYS, params) < 0) return close;
    const metaStart = params[0]!;
    if (metaStart < 0) {
      const comma = isEmptyObject(text, paramsStart) ? '' : ',';
      inserts.push(paramsStart + 1, '"_meta":{' + members + '}' + comma);
      return close;
    }
    if (text.charCodeAt(metaStart) !== OPEN_BRACE) return close;
    if (scanObject(text, metaStart, META_KEYS, meta) < 0 || meta[0]! >= 0) return close;
    inserts.push(metaStart + 1, members + (isEmptyObject(text, metaStart) ? '' : ','));
    return close;
  };

  let i = skipJsonSpace(text, 0);
  const first = text.charCodeAt(i);
  if (first === OPEN_BRACE) {
    if (visit(i, true) < 0) return text;
  } else if (first === OPEN_BRACKET) {
    i = skipJsonSpace(text, i + 1);
    if (text.charCodeAt(i) !== CLOSE_BRACKET) {
      for (;;) {
        const end =
          text.charCodeAt(i) === OPEN_BRACE ? visit(i, false) + 1 : skipJsonValue(text, i);
        if (end <= 0) return text;
        i = skipJsonSpace(text, end);
        const c = text.charCodeAt(i);
        if (c === CLOSE_BRACKET) break;
        if (c !== COMMA) return text;
        i = skipJsonSpace(text, i + 1);
      }
    }
  } else {
    return text;
  }
  if (inserts.length === 0) return text;
  let out = '';
  let from = 0;
  for (let k = 0; k < inserts.length; k += 2) {
    const at = inserts[k] as number;
    out += text.slice(from, at) + (inserts[k + 1] as string);
    from = at;
  }
  return out + text.slice(from);
}
