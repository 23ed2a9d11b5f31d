/**
 * Recovers the exact source text of a message's `id` member, for number ids that a JavaScript
 * number cannot hold exactly (integers beyond 2^53, long fractions). Only called on that rare
 * path, after `JSON.parse` has accepted the text, so the text is known to be valid JSON.
 *
 * @module
 */

function skipSpace(text: string, pos: number): number {
  let c = text.charCodeAt(pos);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++pos);
  return pos;
}

/** Position just after the string starting at `pos` (which is a `"`). */
function skipString(text: string, pos: number): number {
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

function idInObject(text: string, pos: number): string | undefined {
  // pos is at '{'
  let found: string | undefined;
  pos = skipSpace(text, pos + 1);
  if (text.charCodeAt(pos) === 0x7d) return undefined;
  for (;;) {
    const keyEnd = skipString(text, pos);
    const rawKey = text.slice(pos, keyEnd);
    const key = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
    pos = skipSpace(text, keyEnd);
    pos = skipSpace(text, pos + 1); // past ':'
    const valueEnd = skipValue(text, pos);
    // JSON.parse keeps the last of duplicate keys; so do we.
    if (key === 'id') found = text.slice(pos, valueEnd);
    pos = skipSpace(text, valueEnd);
    if (text.charCodeAt(pos) !== 0x2c /* , */) return found;
    pos = skipSpace(text, pos + 1);
  }
}

/**
 * The exact text of the `id` member of the message at `index` in `text` (`-1` for a single
 * message, else the position in a batch), or `undefined` if there is none.
 *
 * @param text - valid JSON text (already accepted by `JSON.parse`)
 * @param index - `-1` for a single message, else the batch position
 * @returns the id's source text
 */
export function findRawId(text: string, index: number): string | undefined {
  let pos = skipSpace(text, 0);
  if (index >= 0) {
    if (text.charCodeAt(pos) !== 0x5b) return undefined;
    pos = skipSpace(text, pos + 1);
    for (let i = 0; i < index; i++) {
      pos = skipSpace(text, skipValue(text, pos));
      pos = skipSpace(text, pos + 1); // past ','
    }
  }
  return text.charCodeAt(pos) === 0x7b ? idInObject(text, pos) : undefined;
}
