/**
 * What a queue worker writes besides reading requests: an answer onto its caller's reply stream,
 * a request given up on onto the dead-letter stream with the error answer its caller gets, and
 * the count of deliveries Redis keeps for each request taken over.
 *
 * @module
 */
import { ErrorCode } from '@jsonrpc-kit/core';
import { headIdText, scanEnvelope, scanHead, stringifyId } from '@jsonrpc-kit/core/engine';
import type { RedisConnection } from './connection.js';
import {
  FIELD_BODY,
  FIELD_CORRELATION,
  FIELD_DELIVERIES,
  FIELD_ENTRY_ID,
  isBatchText,
} from './queue-keys.js';
import type { StreamEntry } from './stream-reply.js';

/** Entries a reply stream keeps, about (`XADD … MAXLEN ~`). */
const REPLY_MAX_LENGTH = '10000';

/** The command that puts an answer on its caller's reply stream (trimmed to about its bound). */
export function replyEntry(to: string, correlation: string, body: string): string[] {
  return [
    'XADD',
    to,
    'MAXLEN',
    '~',
    REPLY_MAX_LENGTH,
    '*',
    FIELD_CORRELATION,
    correlation,
    FIELD_BODY,
    body,
  ];
}

/** Entries the dead-letter stream keeps, about (`XADD … MAXLEN ~`): the oldest go first. */
const DEAD_LETTER_MAX_LENGTH = '10000';

/**
 * The command that parks a request given up on at the end of the dead-letter stream: its fields,
 * its entry id and how many times it was handed out.
 *
 * @param deadLetters - the dead-letter stream's key
 * @param entry - the request's entry
 * @param deliveries - how many times it was handed out
 * @returns the command
 */
export function deadLetterEntry(
  deadLetters: string,
  entry: StreamEntry,
  deliveries: number,
): string[] {
  const fields = entry.fields;
  const flat: string[] = [];
  for (const name of Object.keys(fields)) flat.push(name, fields[name]!);
  return [
    'XADD',
    deadLetters,
    'MAXLEN',
    '~',
    DEAD_LETTER_MAX_LENGTH,
    '*',
    ...flat,
    FIELD_ENTRY_ID,
    entry.id,
    FIELD_DELIVERIES,
    String(deliveries),
  ];
}

/**
 * How many times each of the entries a worker just took over was delivered, as Redis counts.
 *
 * @param connection - the worker's command connection
 * @param queue - the request stream
 * @param group - the consumer group
 * @param consumer - the worker
 * @param entries - the entries taken over, in stream order
 * @param held - how many entries the worker held besides
 * @returns the count of each entry, by its id
 */
export async function deliveriesOf(
  connection: RedisConnection,
  queue: string,
  group: string,
  consumer: string,
  entries: readonly StreamEntry[],
  held: number,
): Promise<Map<string, number>> {
  const reply = await connection.sendCommand([
    'XPENDING',
    queue,
    group,
    entries[0]!.id,
    entries[entries.length - 1]!.id,
    String(entries.length + held),
    consumer,
  ]);
  const counts = new Map<string, number>();
  if (Array.isArray(reply)) {
    for (const row of reply) {
      if (Array.isArray(row)) counts.set(String(row[0]), Number(row[3]));
    }
  }
  return counts;
}

/**
 * The answer to a request given up on: an error for each request in it, with its own id; none
 * for notifications alone.
 *
 * @param body - the request's text
 * @param deliveries - how many times it was handed out
 * @param deadLetters - the dead-letter stream's key
 * @returns the answer's text, or `undefined` when nothing in it expects one
 */
export function abandonedAnswer(
  body: string | undefined,
  deliveries: number,
  deadLetters: string,
): string | undefined {
  const error = JSON.stringify({
    code: ErrorCode.InternalError,
    message: `Request given up on after ${deliveries} deliveries: every worker that took it stopped before answering (parked on "${deadLetters}")`,
    data: { deliveries },
  });
  const answer = (id: string): string => `{"jsonrpc":"2.0","id":${id},"error":${error}}`;
  if (body === undefined) return undefined;
  if (!isBatchText(body)) {
    let key = headIdText(body, 'request');
    if (key === undefined) {
      const envelope = scanHead(body) ?? scanEnvelope(body);
      if (envelope.kind === 'notification' || envelope.kind === 'response') return undefined;
      key = stringifyId(envelope.id, envelope.rawId);
    }
    return answer(key);
  }
  let members: unknown;
  try {
    members = JSON.parse(body);
  } catch {
    return answer('null');
  }
  if (!Array.isArray(members) || members.length === 0) return answer('null');
  const answers: string[] = [];
  for (const member of members) {
    if (member === null || typeof member !== 'object' || !('method' in member)) {
      answers.push(answer('null'));
    } else if ('id' in member) {
      const id = (member as { id: unknown }).id;
      answers.push(
        answer(typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : 'null'),
      );
    }
  }
  return answers.length === 0 ? undefined : `[${answers.join(',')}]`;
}
