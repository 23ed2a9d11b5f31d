/**
 * Recovers the exact source text of `id` members, for number ids that a JavaScript number cannot
 * hold exactly (integers beyond 2^53, long fractions). Only called on that rare path, after
 * `JSON.parse` has accepted the text, so the text is known to be valid JSON.
 *
 * Cost: one pass over the text, whatever its shape. A batch's ids are all recovered in that one
 * pass ({@link findRawIds}), never by a scan per member.
 *
 * @module
 */
import { skipJsonSpace, skipJsonString, skipJsonValue } from './json-skip.js';

/** Values skipped by every scan since the module loaded: the unit tests count work with it. */
let steps = 0;

/**
 * How many values the scanners of this module have stepped over so far. For tests that check the
 * cost of a scan by counting work rather than timing it.
 *
 * @returns the running count
 */
export function rawIdScanSteps(): number {
  return steps;
}

/** Position just after the JSON value starting at `pos` (the text's end when it is cut short). */
function skipValue(text: string, pos: number): number {
  steps++;
  const end = skipJsonValue(text, pos);
  return end === -1 ? text.length : end;
}

/** Where the object read by the last {@link idInObject} call ended. */
let objectEnd = 0;

/** The text of the `id` member of the object at `pos` (a `{`); sets {@link objectEnd}. */
function idInObject(text: string, pos: number): string | undefined {
  let found: string | undefined;
  pos = skipJsonSpace(text, pos + 1);
  if (text.charCodeAt(pos) === 0x7d) {
    objectEnd = pos + 1;
    return undefined;
  }
  for (;;) {
    steps++;
    const keyEnd = skipJsonString(text, pos);
    const rawKey = text.slice(pos, keyEnd);
    const key = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
    pos = skipJsonSpace(text, keyEnd);
    pos = skipJsonSpace(text, pos + 1); // past ':'
    const valueEnd = skipValue(text, pos);
    // JSON.parse keeps the last of duplicate keys; so do we.
    if (key === 'id') found = text.slice(pos, valueEnd);
    pos = skipJsonSpace(text, valueEnd);
    if (text.charCodeAt(pos) !== 0x2c /* , */) {
      objectEnd = pos + 1;
      return found;
    }
    pos = skipJsonSpace(text, pos + 1);
  }
}

/**
 * The exact texts of the `id` members in `text`, in one pass: for a single message, a one-element
 * array; for a batch, one entry per member (`undefined` where a member is not an object or has no
 * `id`). Cost is linear in the length of `text`.
 *
 * @param text - valid JSON text (already accepted by `JSON.parse`)
 * @returns the id texts, by batch position (index 0 for a single message)
 */
export function findRawIds(text: string): (string | undefined)[] {
  let pos = skipJsonSpace(text, 0);
  const first = text.charCodeAt(pos);
  if (first === 0x7b) return [idInObject(text, pos)];
  if (first !== 0x5b) return [undefined];
  const ids: (string | undefined)[] = [];
  pos = skipJsonSpace(text, pos + 1);
  while (pos < text.length && text.charCodeAt(pos) !== 0x5d /* ] */) {
    if (text.charCodeAt(pos) === 0x7b) {
      ids.push(idInObject(text, pos));
      pos = objectEnd;
    } else {
      ids.push(undefined);
      pos = skipValue(text, pos);
    }
    pos = skipJsonSpace(text, pos);
    if (text.charCodeAt(pos) !== 0x2c /* , */) break;
    pos = skipJsonSpace(text, pos + 1);
  }
  return ids;
}
