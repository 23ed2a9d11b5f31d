/**
 * Batch scheduling: answers the members of one batch and joins their answers into one array, in
 * request order. Members run synchronously until one goes async; only then does a per-batch
 * `p-limit` take over, so a batch of synchronous handlers is answered with a string and no
 * promise at all.
 *
 * @module
 */
import { BatchTooLargeError, joinAnswers, serializeError } from '@jsonrpc-kit/core';

export { joinAnswers };

import pLimit, { type LimitFunction } from 'p-limit';

/** One answer: the response text, `undefined` when there is nothing to send, or a promise of either. */
export type Answer = string | undefined | Promise<string | undefined>;

/** How the batches of one server are answered. Made once per server, read on every batch. */
export interface BatchOptions<M, S> {
  /** Most members in one batch; a longer batch is answered with one -32003. */
  readonly maxBatchSize: number;
  /** Most async members running at once within one batch (at least 1). */
  readonly concurrency: number;
  /** Answers one member: text for a request, `undefined` for a notification. */
  readonly answer: (member: M, scope: S) => Answer;
}

/** The answer to a batch longer than the limit: one -32003 error with id `null`. */
export const BATCH_TOO_LARGE_TEXT: string = serializeError(
  null,
  new BatchTooLargeError().toErrorObject(),
);

/**
 * Answers one batch. Members are answered in order, synchronously, until one returns a promise;
 * from then on a `p-limit` of `options.concurrency` schedules the rest, counting the member
 * already running. Answers keep request order whatever order they settle in; members without an
 * answer get no entry.
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
  options: BatchOptions<M, S>,
): Answer {
  const length = members.length;
  if (length > options.maxBatchSize) return BATCH_TOO_LARGE_TEXT;
  const answer = options.answer;
  const parts = new Array<string | undefined>(length);
  let limit: LimitFunction | undefined;
  let waits: Promise<void>[] | undefined;
  for (let i = 0; i < length; i++) {
    const member = members[i]!;
    if (limit === undefined) {
      // Members run synchronously until one goes async; from then on, p-limit schedules the
      // rest, counting the one already running.
      const part = answer(member, scope);
      if (part === undefined || typeof part === 'string') {
        parts[i] = part;
        continue;
      }
      limit = pLimit(options.concurrency);
      waits = [
        limit(() => part).then((text) => {
          parts[i] = text;
        }),
      ];
    } else {
      waits!.push(
        limit(() => answer(member, scope)).then((text) => {
          parts[i] = text;
        }),
      );
    }
  }
  if (waits === undefined) return joinAnswers(parts);
  return Promise.all(waits).then(() => joinAnswers(parts));
}
