/**
 * Whether a sent message still waits for an answer: decided only when an HTTP exchange came back
 * empty, so the normal path never parses what it sent.
 *
 * @module
 */
import { type ParsedMessage, parse } from '@jsonrpc-kit/core';

/** Whether one classified message is owed an answer: a request, or an invalid call with an id. */
function owedAnswer(message: ParsedMessage): boolean {
  if (message.kind === 'request') return true;
  if (message.kind !== 'invalid' || message.response) return false;
  const value = message.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'id' in value;
}

/**
 * Whether `text` (a message or batch that was sent) holds at least one call with an `id` member,
 * that is, one that only an answer completes. Notifications, responses and text that is not JSON
 * hold none.
 *
 * Cheap for the common case of a notification: text without `"id"` (and without a `\u` escape
 * that could spell it) is never parsed.
 *
 * @param text - the sent text
 * @returns `true` when some call in it waits for an answer
 * @example
 * ```ts
 * expectsAnswer('{"jsonrpc":"2.0","id":1,"method":"add"}'); // true
 * expectsAnswer('{"jsonrpc":"2.0","method":"log"}'); // false
 * ```
 */
export function expectsAnswer(text: string): boolean {
  if (!text.includes('"id"') && !text.includes('\\u')) return false;
  const parsed = parse(text);
  if (parsed.kind !== 'batch') return owedAnswer(parsed);
  for (const member of parsed.messages) if (owedAnswer(member)) return true;
  return false;
}
