/**
 * Whether a sent message still waits for an answer once its HTTP exchange came back: decided by
 * parsing what was sent only when the exchange came back empty, and from the heads of both texts
 * when it came back with a body, so the normal path never parses what it sent.
 *
 * @module
 */
import { parse, TransportError } from '@jsonrpc-kit/core';
import { headIdText, type ParsedMessage } from '@jsonrpc-kit/core/engine';

/**
 * Whether one classified message is owed an answer: a request, or an invalid call with an id,
 * except a JSON-RPC 1.0 notification: without `jsonrpc`, `"id": null` marks a notification, which
 * a 1.0 server runs and never answers (a 2.0 call with `"id": null` is still owed its answer).
 */
function owedAnswer(message: ParsedMessage): boolean {
  if (message.kind === 'request') return true;
  if (message.kind !== 'invalid' || message.response) return false;
  const value = message.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('id' in value)) {
    return false;
  }
  return (value as { id: unknown }).id !== null || 'jsonrpc' in value;
}

/**
 * Whether `text` (a message or batch that was sent) holds at least one call with an `id` member,
 * that is, one that only an answer completes. Notifications (also JSON-RPC 1.0's, which carry
 * `"id": null` and no `jsonrpc`), responses and text that is not JSON hold none.
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
 * expectsAnswer('{"id":null,"method":"log","params":[]}'); // false (JSON-RPC 1.0)
 * ```
 */
export function expectsAnswer(text: string): boolean {
  if (!text.includes('"id"') && !text.includes('\\u')) return false;
  const parsed = parse(text);
  if (parsed.kind !== 'batch') return owedAnswer(parsed);
  for (const member of parsed.messages) if (owedAnswer(member)) return true;
  return false;
}

/**
 * Above this length (UTF-16 units) an answer whose head is not core's is not read for its id:
 * reading it would cost about as much as the client's own parse of it.
 */
const READ_LIMIT = 64 * 1024;

/** How core writes a notification. */
const NOTIFICATION_HEAD = '{"jsonrpc":"2.0","method":';

/**
 * The ids (as JSON text) of the requests in `sent`, each owed an answer: one for a request, read
 * from its head when core wrote it; each request's for a batch. `undefined` when it holds none (a
 * notification), and for a batch or an unusual request over 64 KiB (not checked).
 *
 * @param sent - the message or batch sent
 * @returns the ids owed an answer, or `undefined`
 */
export function owedIds(sent: string): Set<string> | undefined {
  const id = headIdText(sent, 'request');
  if (id !== undefined) return new Set([id]);
  if (sent.length > READ_LIMIT) return undefined;
  const parsed = parse(sent);
  const owed = new Set<string>();
  for (const member of parsed.kind === 'batch' ? parsed.messages : [parsed]) {
    if (member.kind === 'request') owed.add(member.rawId ?? JSON.stringify(member.message.id));
  }
  return owed.size === 0 ? undefined : owed;
}

/**
 * Takes from `owed` the ids that `body` answers, alone or in a batch; an answer with id `null`
 * takes them all (the client matches it to what it can be). A large body whose head is not core's
 * counts as answering them all, unread.
 *
 * @param owed - the ids still owed an answer, as JSON text (changed in place)
 * @param body - an answer's body, or one event of an answer stream
 */
export function takeAnswered(owed: Set<string>, body: string): void {
  const head = headIdText(body, 'response');
  if (head !== undefined) {
    owed.delete(head);
    return;
  }
  // A notification or a request to the client, as core writes them (events of a stream).
  if (body.startsWith(NOTIFICATION_HEAD) || headIdText(body, 'request') !== undefined) return;
  if (body.length > READ_LIMIT) {
    owed.clear();
    return;
  }
  const parsed = parse(body);
  for (const member of parsed.kind === 'batch' ? parsed.messages : [parsed]) {
    if (member.kind !== 'response') continue;
    const got = member.rawId ?? JSON.stringify(member.message.id);
    if (got === 'null') {
      owed.clear();
      return;
    }
    owed.delete(got);
  }
}

/**
 * How a request, or the requests, left unanswered are named in an error: "the request with id 1",
 * "the requests with ids 1, 2".
 *
 * @param owed - the ids left unanswered (at least one)
 * @returns the words
 */
export function unansweredWords(owed: ReadonlySet<string>): string {
  return owed.size === 1
    ? `the request with id ${[...owed][0]}`
    : `the requests with ids ${[...owed].join(', ')}`;
}

/**
 * The ids (as JSON text) of the requests in `sent` (a request or a batch) that `body`, the whole
 * answer of its HTTP exchange, holds no answer to: they would wait for answers that cannot come
 * any more. `undefined` when every one is answered, or one answer has id `null`, and when `sent`
 * owes none or is not checked (see {@link owedIds}). Cheap on the common path of one request: the
 * heads of both texts, as core writes them.
 *
 * @param sent - the message or batch sent
 * @param body - the answer's body
 * @returns the unanswered ids, or `undefined`
 */
export function unansweredRequests(sent: string, body: string): Set<string> | undefined {
  // The common case, one request answered, both written core's way: two heads, no set made.
  const id = headIdText(sent, 'request');
  if (id !== undefined && headIdText(body, 'response') === id) return undefined;
  const owed = owedIds(sent);
  if (owed === undefined) return undefined;
  takeAnswered(owed, body);
  return owed.size === 0 ? undefined : owed;
}

/**
 * The error that fails the requests of `sent` that the body that came back holds no answer to
 * (see {@link unansweredRequests}): the body is no JSON, or answers something else.
 *
 * @param status - the HTTP status
 * @param sent - the message or batch sent
 * @param body - the answer's body (delivered already)
 * @returns the error, or `undefined` when all is well
 */
export function missingAnswer(
  status: number,
  sent: string,
  body: string,
): TransportError | undefined {
  const owed = unansweredRequests(sent, body);
  if (owed === undefined) return undefined;
  let json = true;
  try {
    JSON.parse(body);
  } catch {
    json = false;
  }
  return new TransportError(
    json
      ? `HTTP ${status} answer holds no answer to ${unansweredWords(owed)}`
      : `HTTP ${status} answer is not JSON`,
    { status, body },
  );
}
