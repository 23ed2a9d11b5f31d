/**
 * Whether a sent message still waits for an answer once its HTTP exchange came back: decided by
 * parsing what was sent only when the exchange came back empty, and from the heads of both texts
 * when it came back with a body, so the normal path never parses what it sent.
 *
 * @module
 */
import { type ParsedMessage, parse, TransportError } from '@jsonrpc-kit/core';

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

/** How core writes a message with an id: its id right after this. */
const ID_HEAD = '{"jsonrpc":"2.0","id":';

/**
 * Above this length (UTF-16 units) an answer whose head is not core's is not read for its id:
 * reading it would cost about as much as the client's own parse of it.
 */
const READ_LIMIT = 64 * 1024;

/**
 * The id of a message written core's way, as its text, when that text is a number or a string
 * without escapes (what clients use), followed by `after`; `undefined` otherwise (read it whole).
 */
function headId(text: string, after: readonly string[]): string | undefined {
  if (!text.startsWith(ID_HEAD)) return undefined;
  const start = ID_HEAD.length;
  const first = text.charCodeAt(start);
  let end: number;
  if (first === 0x22 /* " */) {
    end = text.indexOf('"', start + 1) + 1;
    if (end === 0 || text.slice(start, end).includes('\\')) return undefined;
  } else if ((first >= 0x30 && first <= 0x39) || first === 0x2d /* - */) {
    end = text.indexOf(',', start);
  } else return undefined;
  if (end <= start || text.charCodeAt(end) !== 0x2c /* , */) return undefined;
  for (const member of after) if (text.startsWith(member, end + 1)) return text.slice(start, end);
  return undefined;
}

const METHOD = ['"method":'];
/** How core writes a notification. */
const NOTIFICATION_HEAD = '{"jsonrpc":"2.0","method":';
const RESULT_OR_ERROR = ['"result":', '"error":'];

/**
 * The id (as JSON text) of `sent` when it is one request; `undefined` for anything else (a batch,
 * a notification: not checked). Read from its head when core wrote it, else parsed.
 *
 * @param sent - the message sent
 * @returns its id's text, or `undefined`
 */
export function requestIdText(sent: string): string | undefined {
  const id = headId(sent, METHOD);
  if (id !== undefined) return id;
  if (sent.length > READ_LIMIT) return undefined;
  const request = parse(sent);
  return request.kind === 'request'
    ? (request.rawId ?? JSON.stringify(request.message.id))
    : undefined;
}

/**
 * Whether `body` answers the request whose id reads `id` (as JSON text), alone or in a batch, or
 * answers with id `null` (the client fails the one request that can be for that). A large body
 * whose head is not core's counts as an answer, unread.
 *
 * @param body - an answer's body, or one event of an answer stream
 * @param id - the request's id, as JSON text
 * @returns whether it does
 */
export function answersRequest(body: string, id: string): boolean {
  const head = headId(body, RESULT_OR_ERROR);
  if (head !== undefined) return head === id;
  // A notification or a request to the client, as core writes them (events of a stream).
  if (body.startsWith(NOTIFICATION_HEAD) || headId(body, METHOD) !== undefined) return false;
  if (body.length > READ_LIMIT) return true;
  const parsed = parse(body);
  const members = parsed.kind === 'batch' ? parsed.messages : [parsed];
  for (const member of members) {
    if (member.kind !== 'response') continue;
    const got = member.rawId ?? JSON.stringify(member.message.id);
    if (got === id || got === 'null') return true;
  }
  return false;
}

/**
 * The id (as JSON text) of the request `sent` when `body`, the whole answer of its HTTP exchange,
 * holds no answer to it: that request would wait for an answer that cannot come any more.
 * `undefined` when the body answers it, or answers with id `null`, and when `sent` is not one
 * request (see {@link requestIdText}). Cheap on the common path: the heads of both texts, as core
 * writes them.
 *
 * @param sent - the message sent
 * @param body - the answer's body
 * @returns the unanswered id, or `undefined`
 */
export function unansweredRequest(sent: string, body: string): string | undefined {
  const id = requestIdText(sent);
  return id === undefined || answersRequest(body, id) ? undefined : id;
}

/**
 * The error that fails the request `sent` when the body that came back holds no answer to it
 * (see {@link unansweredRequest}): the body is no JSON, or answers something else.
 *
 * @param status - the HTTP status
 * @param sent - the message sent
 * @param body - the answer's body (delivered already)
 * @returns the error, or `undefined` when all is well
 */
export function missingAnswer(
  status: number,
  sent: string,
  body: string,
): TransportError | undefined {
  const id = unansweredRequest(sent, body);
  if (id === undefined) return undefined;
  let json = true;
  try {
    JSON.parse(body);
  } catch {
    json = false;
  }
  return new TransportError(
    json
      ? `HTTP ${status} answer holds no answer to the request with id ${id}`
      : `HTTP ${status} answer is not JSON`,
    { status, body },
  );
}
