/**
 * Batch scheduling: answers the members of one batch and joins their answers into one array, in
 * request order. Members run synchronously until one goes async; only then does a per-batch
 * `p-limit` take over, so a batch of synchronous handlers is answered with a string and no
 * promise at all. `p-limit` itself is loaded by the first batch that goes async, not when the
 * server is imported: most servers never need it, and each module loaded costs start-up time.
 *
 * @module
 */
import { BatchTooLargeError, serializeError } from '@jsonrpc-kit/core';
import { joinAnswers } from '@jsonrpc-kit/core/engine';
import type { LimitFunction } from 'p-limit';

export { joinAnswers };

/** `p-limit`'s factory. */
type PLimit = (concurrency: number) => LimitFunction;

/** `p-limit` once loaded, and its loading. */
let pLimit: PLimit | undefined;
let loadingPLimit: Promise<PLimit> | undefined;

/**
 * Loads `p-limit` once.
 *
 * @returns its factory
 */
export function loadPLimit(): Promise<PLimit> {
  loadingPLimit ??= import('p-limit').then((module) => {
    pLimit = module.default;
    return pLimit;
  });
  return loadingPLimit;
}

const ignore = (): void => {};

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
 * already running (the first such batch waits for `p-limit` to load before it starts the rest).
 * Answers keep request order whatever order they settle in; members without an answer get no
 * entry.
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
  const parts = new Array<string | undefined>(length);
  for (let i = 0; i < length; i++) {
    const part = options.answer(members[i]!, scope);
    if (part === undefined || typeof part === 'string') {
      parts[i] = part;
      continue;
    }
    // The first member that went async: p-limit schedules it and the rest.
    if (pLimit !== undefined) return answerRest(pLimit, members, i, part, parts, scope, options);
    // Observed now, so that a rejection while p-limit loads is not reported as unhandled; the
    // batch still sees it below.
    part.then(undefined, ignore);
    return loadPLimit().then((loaded) =>
      answerRest(loaded, members, i, part, parts, scope, options),
    );
  }
  return joinAnswers(parts);
}

/**
 * Answers the members from `first` on under one `p-limit`, member `first` already running.
 *
 * @returns the joined answers, once all have settled
 */
function answerRest<M, S>(
  makeLimit: PLimit,
  members: readonly M[],
  first: number,
  running: Promise<string | undefined>,
  parts: Array<string | undefined>,
  scope: S,
  options: BatchOptions<M, S>,
): Promise<string | undefined> {
  const limit = makeLimit(options.concurrency);
  const answer = options.answer;
  const waits = [
    limit(() => running).then((text) => {
      parts[first] = text;
    }),
  ];
  for (let i = first + 1; i < members.length; i++) {
    const member = members[i]!;
    waits.push(
      limit(() => answer(member, scope)).then((text) => {
        parts[i] = text;
      }),
    );
  }
  return Promise.all(waits).then(() => joinAnswers(parts));
}
