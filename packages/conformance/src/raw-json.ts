/**
 * Raw JSON text, read without losing digits: the members of an object and the elements of an
 * array as their source text, and numbers compared by their exact decimal value, so that an id of
 * `9007199254740993` answered as `9007199254740992` is caught.
 *
 * @module
 */
import { skipJsonSpace, skipJsonValue } from '@jsonrpc-kit/core/engine';

/**
 * The index after the JSON value that starts at `i` (no leading whitespace), by core's skipper.
 * The text must already be known to be valid JSON (`JSON.parse` accepted it); cut short, the
 * text's end.
 */
function skipValue(text: string, i: number): number {
  const end = skipJsonValue(text, i);
  return end === -1 ? text.length : end;
}

/** The members of a JSON object text, as raw value texts. */
export interface RawMembers {
  /** Member name → its value's source text (the last one when a name repeats). */
  readonly members: ReadonlyMap<string, string>;
  /** Names that occur more than once. */
  readonly duplicates: readonly string[];
}

/**
 * Reads the members of a JSON object text (already validated by `JSON.parse`) as raw texts.
 *
 * @param text - the text of one JSON object
 * @returns the members, or `undefined` when the text is not an object
 */
export function rawMembers(text: string): RawMembers | undefined {
  let i = skipJsonSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  const members = new Map<string, string>();
  const duplicates: string[] = [];
  i = skipJsonSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x7d) {
    const nameEnd = skipValue(text, i);
    const name = JSON.parse(text.slice(i, nameEnd)) as string;
    i = skipJsonSpace(text, nameEnd) + 1; // the colon
    i = skipJsonSpace(text, i);
    const end = skipValue(text, i);
    if (members.has(name)) duplicates.push(name);
    members.set(name, text.slice(i, end));
    i = skipJsonSpace(text, end);
    if (text.charCodeAt(i) === 0x2c) i = skipJsonSpace(text, i + 1);
  }
  return { members, duplicates };
}

/**
 * Reads the elements of a JSON array text (already validated by `JSON.parse`) as raw texts.
 *
 * @param text - the text of one JSON array
 * @returns the elements' texts, or `undefined` when the text is not an array
 */
export function rawElements(text: string): string[] | undefined {
  let i = skipJsonSpace(text, 0);
  if (text.charCodeAt(i) !== 0x5b) return undefined;
  const elements: string[] = [];
  i = skipJsonSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x5d) {
    const end = skipValue(text, i);
    elements.push(text.slice(i, end));
    i = skipJsonSpace(text, end);
    if (text.charCodeAt(i) === 0x2c) i = skipJsonSpace(text, i + 1);
  }
  return elements;
}

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A number's exact value as `[-]digits e exponent`, with no leading or trailing zeros. */
function canonicalNumber(raw: string): string | undefined {
  const m = NUMBER.exec(raw);
  if (!m) return undefined;
  const fraction = m[3] ?? '';
  let digits = (m[2]! + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = Number(m[4] ?? '0') - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  return `${m[1]}${digits}e${exponent}`;
}

/**
 * Whether two raw JSON id texts denote the same JSON value: strings by their value, numbers by
 * their exact decimal value (every digit counts, so `9007199254740993` differs from
 * `9007199254740992`, while `1.5` equals `1.50`), `null` as itself.
 *
 * @param expected - the raw id text that was sent
 * @param actual - the raw id text that came back
 * @returns whether they are the same id
 */
export function sameRawId(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  const a = canonicalNumber(expected);
  if (a !== undefined) return a === canonicalNumber(actual);
  try {
    const x: unknown = JSON.parse(expected);
    const y: unknown = JSON.parse(actual);
    return typeof x === 'string' && x === y;
  } catch {
    return false;
  }
}

/**
 * Whether a JSON text parses, without throwing.
 *
 * @param text - any text
 * @returns the parsed value, or `undefined` with `ok: false`
 */
export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Deep equality of two parsed JSON values (member order ignored).
 *
 * @param a - a JSON value
 * @param b - another
 * @returns whether they are equal
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((key) => Object.hasOwn(y, key) && jsonEqual(x[key], y[key]));
}

/**
 * Shortens a text for a one-line report.
 *
 * @param text - any text
 * @param max - the longest result
 * @returns the text, cut with `…` when longer than `max`
 */
export function short(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
