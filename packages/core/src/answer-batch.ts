/**
 * Batch scheduling for the incoming-call runner: answers the members of one batch and joins
 * their answers into one array, in request order. Members run synchronously until one goes
 * async; only then is a bound on the members running at once needed, so a batch of synchronous
 * handlers is answered with a string and no promise at all.
 *
 * @module
 */

import { serializeError } from './serialize.js';
import type { SessionAnswer } from './session.js';
import { BatchTooLargeError } from './wire-errors.js';

/** How one runner answers batches. Made once, read on every batch. */
export interface BatchScheduling<M, S> {
  /** Most members in one batch; a longer batch is answered with one -32003. */
  readonly maxBatchSize: number;
  /** Most async members running at once within one batch (at least 1). */
  readonly concurrency: number;
  /** Answers one member: text for a request, `undefined` for a notification. */
  readonly answer: (member: M, scope: S) => SessionAnswer;
}

/** The answer to a batch longer than the limit: one -32003 error with id `null`. */
export const BATCH_TOO_LARGE_TEXT: string = serializeError(
  null,
  new BatchTooLargeError().toErrorObject(),
);

/**
 * Answers one batch. Members are answered in order, synchronously, until one returns a promise;
 * from then on at most `options.concurrency` members run at once, counting the one already
 * running. Answers keep request order whatever order they settle in; members without an answer
 * get no entry. A member whose answer rejects rejects the batch's answer (the runner's members
 * never do: they map every failure to an answer).
 *
 * @param members - the batch's members (not empty: the parser answers an empty batch itself)
 * @param scope - passed through to `options.answer`
 * @param options - the size limit, the concurrency and how to answer one member
 * @returns {@link BATCH_TOO_LARGE_TEXT} over `maxBatchSize`; the array text; `undefined` when
 *   every member is a notification; a promise of either when any member went async
 * @example
 * ```ts
 * const options = { maxBatchSize: 100, concurrency: 10, answer: (n: number) => `${n * 2}` };
 * answerBatch([1, 2, 3], undefined, options); // '[2,4,6]', synchronously
 * ```
 */
export function answerBatch<M, S>(
  members: readonly M[],
  scope: S,
  options: BatchScheduling<M, S>,
): SessionAnswer {
  const length = members.length;
  if (length > options.maxBatchSize) return BATCH_TOO_LARGE_TEXT;
  const parts = new Array<string | undefined>(length);
  for (let i = 0; i < length; i++) {
    const part = options.answer(members[i]!, scope);
    if (part === undefined || typeof part === 'string') {
      parts[i] = part;
      continue;
    }
    return answerRest(members, i, part, parts, scope, options);
  }
  return joinAnswers(parts);
}

/**
 * Answers the members after `first` with at most `options.concurrency` running at once, member
 * `first` already running. O(members): each member is started once and settled once.
 *
 * @returns the joined answers, once all have settled
 */
function answerRest<M, S>(
  members: readonly M[],
  first: number,
  running: Promise<string | undefined>,
  parts: Array<string | undefined>,
  scope: S,
  options: BatchScheduling<M, S>,
): Promise<string | undefined> {
  const { answer, concurrency } = options;
  const length = members.length;
  return new Promise((resolve, reject) => {
    let next = first + 1;
    let active = 1;
    let left = length - first;
    let failed = false;
    const fail = (error: unknown): void => {
      failed = true;
      reject(error);
    };
    const settled = (i: number, text: string | undefined): void => {
      parts[i] = text;
      active--;
      if (--left === 0) resolve(joinAnswers(parts));
      else if (!failed) start();
    };
    /** Starts members while there is room; a member answered at once frees its room at once. */
    const start = (): void => {
      while (active < concurrency && next < length) {
        const i = next++;
        active++;
        let part: SessionAnswer;
        try {
          part = answer(members[i]!, scope);
        } catch (error) {
          fail(error);
          return;
        }
        if (part === undefined || typeof part === 'string') {
          parts[i] = part;
          active--;
          if (--left === 0) resolve(joinAnswers(parts));
        } else {
          part.then((text) => settled(i, text), fail);
        }
      }
    };
    running.then((text) => settled(first, text), fail);
    start();
  });
}

/**
 * Joins the answers of a batch's members into one JSON array; members without an answer have no
 * slot. O(total length).
 *
 * @param parts - the members' answers, in order
 * @returns the array text, or `undefined` when no member has an answer
 * @example
 * ```ts
 * joinAnswers(['{"jsonrpc":"2.0","id":1,"result":1}', undefined]);
 * // '[{"jsonrpc":"2.0","id":1,"result":1}]'
 * ```
 */
export function joinAnswers(parts: readonly (string | undefined)[]): string | undefined {
  let text: string | undefined;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part !== undefined) text = text === undefined ? '[' + part : text + ',' + part;
  }
  return text === undefined ? undefined : text + ']';
}
