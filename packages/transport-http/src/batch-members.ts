/**
 * The member texts of a JSON array, cut from its text rather than re-serialized, so that what
 * `JSON.parse` would change (ids beyond 2^53, number spellings) goes out as it was written.
 *
 * @module
 */
import { skipJsonSpace, skipJsonValue } from '@jsonrpc-kit/core/engine';

/**
 * Cuts a JSON array's text into its members' texts. One pass over the text, jumping over strings
 * (core's skipper).
 *
 * @param text - the text of a JSON array (valid JSON, as a serializer wrote it)
 * @returns each member's text, trimmed
 */
export function batchMembers(text: string): string[] {
  const members: string[] = [];
  let i = skipJsonSpace(text, 0);
  if (text.charCodeAt(i) !== 0x5b /* [ */) return members;
  i = skipJsonSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x5d /* ] */) {
    const end = skipJsonValue(text, i);
    if (end === -1) break;
    members.push(text.slice(i, end));
    i = skipJsonSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) break;
    i = skipJsonSpace(text, i + 1);
  }
  return members;
}
