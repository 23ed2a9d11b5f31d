/**
 * The member texts of a JSON array, cut from its text rather than re-serialized, so that what
 * `JSON.parse` would change (ids beyond 2^53, number spellings) goes out as it was written.
 *
 * @module
 */

/**
 * Cuts a JSON array's text into its members' texts. One pass over the text.
 *
 * @param text - the text of a JSON array (valid JSON, as a serializer wrote it)
 * @returns each member's text, trimmed
 */
export function batchMembers(text: string): string[] {
  const members: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    // A member starts at its first character that is not blank or a separator.
    if (depth === 1 && start === -1 && c > 0x20 && c !== 0x2c && c !== 0x5d) start = i;
    if (c === 0x22) inString = true;
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
