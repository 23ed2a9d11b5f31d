/**
 * The member texts of a JSON array, cut from its text rather than re-serialized, so that what
 * `JSON.parse` would change (ids beyond 2^53, number spellings) goes out as it was written.
 *
 * @module
 */

/**
 * The index of the quote that closes the string opened at `open`: the next quote not escaped,
 * that is, not after an odd run of backslashes. Found with `indexOf`, so a string's characters are
 * not read one by one in script; each backslash is counted at most once.
 */
function stringEnd(text: string, open: number): number {
  for (
    let close = text.indexOf('"', open + 1);
    close !== -1;
    close = text.indexOf('"', close + 1)
  ) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if ((backslashes & 1) === 0) return close;
  }
  return text.length;
}

/**
 * Cuts a JSON array's text into its members' texts. One pass over the text, jumping over strings.
 *
 * @param text - the text of a JSON array (valid JSON, as a serializer wrote it)
 * @returns each member's text, trimmed
 */
export function batchMembers(text: string): string[] {
  const members: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A member starts at its first character that is not blank or a separator.
    if (depth === 1 && start === -1 && c > 0x20 && c !== 0x2c && c !== 0x5d) start = i;
    if (c === 0x22 /* " */) i = stringEnd(text, i);
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) depth++;
    else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (--depth === 0) {
        if (start !== -1) members.push(text.slice(start, i).trim());
        break;
      }
    } else if (c === 0x2c /* , */ && depth === 1) {
      members.push(text.slice(start, i).trim());
      start = -1;
    }
  }
  return members;
}
