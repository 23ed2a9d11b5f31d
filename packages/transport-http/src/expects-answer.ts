/**
 * Whether a sent message still waits for an answer once its HTTP exchange came back: decided by
 * parsing what was sent only when the exchange came back empty, and from the heads of both texts
 * when it came back with a body, so the normal path never parses what it sent.
 *
 * @module
 */
import {
  type ParsedMessage,
  parse,
  scanEnvelope,
  scanHead,
  TransportError,
} from '@jsonrpc-kit/core';

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
 * Whether `sent` is a request core wrote with a number id (the client's own ids) and `body` an
 * answer core's way with the same id text: the common case, told from a few characters.
 */
function sameNumberId(sent: string, body: string): boolean {
  if (!sent.startsWith(ID_HEAD) || !body.startsWith(ID_HEAD)) return false;
  const first = sent.charCodeAt(ID_HEAD.length);
  // A digit or a minus: a number, whose text ends at the comma after it.
  if (!((first >= 0x30 && first <= 0x39) || first === 0x2d)) return false;
  const end = sent.indexOf(',', ID_HEAD.length);
  return (
    end !== -1 &&
    sent.startsWith('"method":', end + 1) &&
    body.startsWith(sent.slice(ID_HEAD.length, end + 1), ID_HEAD.length) &&
    (body.startsWith('"result":', end + 1) || body.startsWith('"error":', end + 1))
  );
}

/**
 * The id (as JSON text) of `sent` when it is one request as core writes it; `undefined` for
 * anything else (a batch, a notification: not checked).
 *
 * @param sent - the message sent
 * @returns its id's text, or `undefined`
 */
export function requestIdText(sent: string): string | undefined {
  const request = scanHead(sent);
  return request?.kind === 'request' ? (request.rawId ?? JSON.stringify(request.id)) : undefined;
}

/**
 * Whether `body` answers the request whose id reads `id` (as JSON text), alone or in a batch, or
 * answers with id `null` (the client fails the one request that can be for that).
 *
 * @param body - an answer's body, or one event of an answer stream
 * @param id - the request's id, as JSON text
 * @returns whether it does
 */
export function answersRequest(body: string, id: string): boolean {
  const answers = (envelope: { readonly id: unknown; readonly rawId: string | undefined }) => {
    const got = envelope.rawId ?? JSON.stringify(envelope.id);
    return got === id || got === 'null';
  };
  if (body.trimStart().charCodeAt(0) !== 0x5b /* [ */) {
    const answer = scanHead(body) ?? scanEnvelope(body);
    return answer.kind === 'response' && answers(answer);
  }
  // The answers of a batch.
  const parsed = parse(body);
  const members = parsed.kind === 'batch' ? parsed.messages : [];
  for (const member of members) {
    if (member.kind === 'response' && answers({ id: member.message.id, rawId: member.rawId })) {
      return true;
    }
  }
  return false;
}

/**
 * The id (as JSON text) of the request `sent` when `body`, the whole answer of its HTTP exchange,
 * holds no answer to it: that request would wait for an answer that cannot come any more.
 * `undefined` when the body answers it, or answers with id `null`, and when `sent` is not one
 * request as core writes it (see {@link requestIdText}). Cheap on the common path: a few
 * characters of both texts for the client's own number ids, their heads otherwise.
 *
 * @param sent - the message sent
 * @param body - the answer's body
 * @returns the unanswered id, or `undefined`
 */
export function unansweredRequest(sent: string, body: string): string | undefined {
  if (sameNumberId(sent, body)) return undefined;
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
