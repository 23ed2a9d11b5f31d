/**
 * Judging raw answers: the response envelope the specification prescribes, ids compared digit for
 * digit, results and error codes, batches matched by id in any order.
 *
 * @module
 */
import { jsonEqual, rawElements, rawMembers, sameRawId, short, tryParse } from './raw-json.js';

/** What one case concluded. */
export interface Outcome {
  readonly status: 'pass' | 'fail' | 'skip';
  /** What the target did, in a few words. */
  readonly detail: string;
}

/** A passing outcome. */
export const pass = (detail: string): Outcome => ({ status: 'pass', detail });
/** A failing outcome. */
export const fail = (detail: string): Outcome => ({ status: 'fail', detail });
/** A skipped case. */
export const skip = (detail: string): Outcome => ({ status: 'skip', detail });

/** One expected response: a result, or an error with one of some codes; one of some ids. */
export type ExpectedResponse =
  | { readonly ids: readonly string[]; readonly result: unknown }
  | { readonly ids: readonly string[]; readonly codes: readonly number[] };

/** What a case expects the target to answer. */
export type Expected =
  | { readonly none: true }
  | ExpectedResponse
  | { readonly batch: readonly ExpectedResponse[] };

/** What the target answered to one message (for duplex transports: what arrived for it). */
export interface Answered {
  /** The message texts; empty when nothing was answered. */
  readonly messages: readonly string[];
  /** Why the exchange may be incomplete: the connection closed, the target went silent. */
  readonly trouble?: string | undefined;
}

/** A response envelope, read from raw text. */
export interface Envelope {
  readonly rawId: string;
  readonly hasResult: boolean;
  readonly result: unknown;
  readonly code: number | undefined;
  /** Extra or duplicated members, worth a mention but allowed. */
  readonly notes: readonly string[];
}

/**
 * Reads one response object from raw text and checks the envelope: `"jsonrpc": "2.0"`, an `id`
 * that is a string, number or null, exactly one of `result` and `error`, an error object with an
 * integer `code` and a string `message`.
 *
 * @param text - the raw text of one response object
 * @returns the envelope, or a sentence saying what is wrong
 */
export function readEnvelope(text: string): Envelope | string {
  const parsed = tryParse(text);
  if (!parsed.ok) return `not JSON: ${short(text, 60)}`;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `not a response object: ${short(text, 60)}`;
  }
  const raw = rawMembers(text)!;
  const response = value as Record<string, unknown>;
  const notes: string[] = [];
  if (response.jsonrpc !== '2.0') return `"jsonrpc" is ${JSON.stringify(response.jsonrpc)}`;
  if (!Object.hasOwn(response, 'id')) return 'no "id" member';
  const id = response.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
    return `"id" is ${short(JSON.stringify(id), 40)}`;
  }
  const hasResult = Object.hasOwn(response, 'result');
  const hasError = Object.hasOwn(response, 'error');
  if (hasResult === hasError) {
    return hasResult ? 'both "result" and "error"' : 'neither "result" nor "error"';
  }
  let code: number | undefined;
  if (hasError) {
    const error = response.error;
    if (typeof error !== 'object' || error === null || Array.isArray(error)) {
      return `"error" is ${short(JSON.stringify(error), 40)}`;
    }
    const e = error as Record<string, unknown>;
    if (typeof e.code !== 'number' || !Number.isInteger(e.code)) {
      return `"error.code" is ${JSON.stringify(e.code)}, not an integer`;
    }
    if (typeof e.message !== 'string') return `"error.message" is ${JSON.stringify(e.message)}`;
    code = e.code;
    const extra = Object.keys(e).filter((k) => k !== 'code' && k !== 'message' && k !== 'data');
    if (extra.length > 0) notes.push(`extra error members ${extra.join(', ')}`);
  }
  const extra = Object.keys(response).filter(
    (k) => k !== 'jsonrpc' && k !== 'id' && k !== 'result' && k !== 'error',
  );
  if (extra.length > 0) notes.push(`extra members ${extra.join(', ')}`);
  if (raw.duplicates.length > 0) notes.push(`duplicate members ${raw.duplicates.join(', ')}`);
  return { rawId: raw.members.get('id')!, hasResult, result: response.result, code, notes };
}

/**
 * Describes an envelope in a few words.
 *
 * @param envelope - a response
 * @returns e.g. `error -32601, id "1"` or `result 19, id 1`
 */
export function describe(envelope: Envelope): string {
  const what = envelope.hasResult
    ? `result ${short(JSON.stringify(envelope.result), 40)}`
    : `error ${envelope.code}`;
  return `${what}, id ${short(envelope.rawId, 40)}`;
}

function describeExpected(expected: ExpectedResponse): string {
  const what =
    'result' in expected
      ? `result ${short(JSON.stringify(expected.result), 40)}`
      : `error ${expected.codes.join(' or ')}`;
  return `${what}, id ${expected.ids.join(' or ')}`;
}

/** Whether an envelope is the expected response; `undefined` when it is, else what differs. */
function mismatch(envelope: Envelope, expected: ExpectedResponse): string | undefined {
  if (!expected.ids.some((id) => sameRawId(id, envelope.rawId))) {
    return `id ${short(envelope.rawId, 40)}, expected ${expected.ids.join(' or ')}`;
  }
  if ('result' in expected) {
    if (!envelope.hasResult) return `error ${envelope.code}, expected a result`;
    if (!jsonEqual(envelope.result, expected.result)) {
      return `result ${short(JSON.stringify(envelope.result), 40)}, expected ${short(JSON.stringify(expected.result), 40)}`;
    }
    return undefined;
  }
  if (envelope.hasResult) {
    return `result ${short(JSON.stringify(envelope.result), 40)}, expected error ${expected.codes.join(' or ')}`;
  }
  if (!expected.codes.includes(envelope.code!)) {
    return `error ${envelope.code}, expected ${expected.codes.join(' or ')}`;
  }
  return undefined;
}

/** Which of several allowed ids was chosen, when more than one was allowed. */
function choice(envelope: Envelope, expected: ExpectedResponse): string {
  const parts: string[] = [];
  if (expected.ids.length > 1) parts.push(`id ${envelope.rawId} of ${expected.ids.join('/')}`);
  if (!('result' in expected) && expected.codes.length > 1) {
    parts.push(`code ${envelope.code} of ${expected.codes.join('/')}`);
  }
  parts.push(...envelope.notes);
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/**
 * Checks one response text against an expected response.
 *
 * @param text - the raw text
 * @param expected - what it must be
 * @returns the outcome
 */
export function judgeResponse(text: string, expected: ExpectedResponse): Outcome {
  const envelope = readEnvelope(text);
  if (typeof envelope === 'string') return fail(envelope);
  const wrong = mismatch(envelope, expected);
  if (wrong !== undefined) return fail(wrong);
  return pass(`${describe(envelope)}${choice(envelope, expected)}`);
}

function judgeBatch(text: string, expected: readonly ExpectedResponse[]): Outcome {
  const elements = rawElements(text);
  if (elements === undefined) {
    const envelope = readEnvelope(text);
    return fail(
      typeof envelope === 'string'
        ? `not an array: ${envelope}`
        : `one response instead of an array: ${describe(envelope)}`,
    );
  }
  const envelopes: Envelope[] = [];
  for (const [i, element] of elements.entries()) {
    const envelope = readEnvelope(element);
    if (typeof envelope === 'string') return fail(`member ${i}: ${envelope}`);
    envelopes.push(envelope);
  }
  if (envelopes.length !== expected.length) {
    return fail(
      `${envelopes.length} responses, expected ${expected.length}: ${envelopes.map(describe).join(' | ')}`,
    );
  }
  // Match the most specific expectations first (one allowed id, not null), then the rest.
  const order = expected
    .map((e, i) => ({ e, i, loose: e.ids.length > 1 || e.ids[0] === 'null' ? 1 : 0 }))
    .sort((a, b) => a.loose - b.loose || a.i - b.i);
  const taken = new Array<number>(expected.length);
  const used = new Set<number>();
  const notes: string[] = [];
  for (const { e, i } of order) {
    const found = envelopes.findIndex((env, j) => !used.has(j) && mismatch(env, e) === undefined);
    if (found === -1) {
      return fail(`no response for ${describeExpected(e)}: ${envelopes.map(describe).join(' | ')}`);
    }
    used.add(found);
    taken[i] = found;
    const note = choice(envelopes[found]!, e);
    if (note !== '') notes.push(note.trim());
  }
  const inOrder = taken.every((position, i) => i === 0 || position > taken[i - 1]!);
  const orderNote =
    expected.length < 2 ? '' : inOrder ? ', in request order' : ', reordered (allowed)';
  return pass(
    `${envelopes.length} response${envelopes.length === 1 ? '' : 's'}${orderNote}${notes.length > 0 ? ` ${[...new Set(notes)].join(' ')}` : ''}`,
  );
}

/**
 * Judges what a target answered to one message.
 *
 * @param answered - the messages that arrived for it
 * @param expected - what the specification requires
 * @returns the outcome, with what the target did
 */
export function judge(answered: Answered, expected: Expected): Outcome {
  const { messages } = answered;
  const trouble = answered.trouble === undefined ? '' : ` (${answered.trouble})`;
  if ('none' in expected) {
    if (messages.length === 0) {
      return answered.trouble === undefined ? pass('nothing answered') : fail(answered.trouble);
    }
    return fail(`answered ${short(messages.join(' | '), 100)}`);
  }
  if (messages.length === 0) return fail(`nothing answered${trouble}`);
  if (messages.length > 1) {
    return fail(`${messages.length} messages for one: ${short(messages.join(' | '), 100)}`);
  }
  const text = messages[0]!;
  if ('batch' in expected) return judgeBatch(text, expected.batch);
  if (rawElements(text) !== undefined)
    return fail(`an array instead of one response: ${short(text, 80)}`);
  return judgeResponse(text, expected);
}
