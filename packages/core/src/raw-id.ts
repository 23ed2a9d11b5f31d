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

function skipSpace(text: string, pos: number): number {
  let c = text.charCodeAt(pos);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++pos);
  return pos;
}

/**
 * Position just after the string starting at `pos` (which is a `"`); at or past the text's end
 * when the string is not closed.
 */
export function skipString(text: string, pos: number): number {
  pos++;
  for (;;) {
    const c = text.charCodeAt(pos);
    if (c === 0x5c /* \ */) pos += 2;
    else if (c === 0x22 /* " */) return pos + 1;
    else if (Number.isNaN(c)) return pos;
    else pos++;
  }
}

/** Position just after the JSON value starting at `pos`. */
function skipValue(text: string, pos: number): number {
  steps++;
  const first = text.charCodeAt(pos);
  if (first === 0x22) return skipString(text, pos);
  if (first !== 0x7b /* { */ && first !== 0x5b /* [ */) {
    // number, true, false or null: up to the next delimiter
    let c = text.charCodeAt(pos);
    while (
      !Number.isNaN(c) &&
      c !== 0x2c &&
      c !== 0x7d &&
      c !== 0x5d &&
      c !== 0x20 &&
      c !== 0x0a &&
      c !== 0x0d &&
      c !== 0x09
    )
      c = text.charCodeAt(++pos);
    return pos;
  }
  let depth = 0;
  for (;;) {
    const c = text.charCodeAt(pos);
    if (Number.isNaN(c)) return pos;
    if (c === 0x22) {
      pos = skipString(text, pos);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return pos + 1;
    }
    pos++;
  }
}

/** Where the object read by the last {@link idInObject} call ended. */
let objectEnd = 0;

/** The text of the `id` member of the object at `pos` (a `{`); sets {@link objectEnd}. */
function idInObject(text: string, pos: number): string | undefined {
  let found: string | undefined;
  pos = skipSpace(text, pos + 1);
  if (text.charCodeAt(pos) === 0x7d) {
    objectEnd = pos + 1;
    return undefined;
  }
  for (;;) {
    steps++;
    const keyEnd = skipString(text, pos);
    const rawKey = text.slice(pos, keyEnd);
    const key = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
    pos = skipSpace(text, keyEnd);
    pos = skipSpace(text, pos + 1); // past ':'
    const valueEnd = skipValue(text, pos);
    // JSON.parse keeps the last of duplicate keys; so do we.
    if (key === 'id') found = text.slice(pos, valueEnd);
    pos = skipSpace(text, valueEnd);
    if (text.charCodeAt(pos) !== 0x2c /* , */) {
      objectEnd = pos + 1;
      return found;
    }
    pos = skipSpace(text, pos + 1);
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
  let pos = skipSpace(text, 0);
  const first = text.charCodeAt(pos);
  if (first === 0x7b) return [idInObject(text, pos)];
  if (first !== 0x5b) return [undefined];
  const ids: (string | undefined)[] = [];
  pos = skipSpace(text, pos + 1);
  while (pos < text.length && text.charCodeAt(pos) !== 0x5d /* ] */) {
    if (text.charCodeAt(pos) === 0x7b) {
      ids.push(idInObject(text, pos));
      pos = objectEnd;
    } else {
      ids.push(undefined);
      pos = skipValue(text, pos);
    }
    pos = skipSpace(text, pos);
    if (text.charCodeAt(pos) !== 0x2c /* , */) break;
    pos = skipSpace(text, pos + 1);
  }
  return ids;
}
