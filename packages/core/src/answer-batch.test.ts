import { describe, expect, it, vi } from 'vitest';
import {
  answerBatch,
  BATCH_TOO_LARGE_TEXT,
  type BatchScheduling,
  joinAnswers,
} from './answer-batch.js';
import type { SessionAnswer as Answer } from './session.js';

/** A member of a test batch: answered synchronously or after a delay, with text or nothing. */
interface Member {
  readonly id: number;
  readonly async?: boolean;
  readonly delay?: number;
  readonly notification?: boolean;
}

const text = (id: number): string => `{"jsonrpc":"2.0","id":${id},"result":${id}}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function options(
  answer: (member: Member) => Answer,
  concurrency = 10,
  maxBatchSize = 100,
): BatchScheduling<Member, undefined> {
  return { maxBatchSize, concurrency, answer };
}

/** Answers members as they say: sync or after `delay` ms, text or (for notifications) nothing. */
function plain(member: Member): Answer {
  const value = member.notification ? undefined : text(member.id);
  if (!member.async) return value;
  return sleep(member.delay ?? 0).then(() => value);
}

describe('joinAnswers', () => {
  it('joins text into one array, skipping undefined', () => {
    expect(joinAnswers([text(1), undefined, text(3)])).toBe(`[${text(1)},${text(3)}]`);
    expect(joinAnswers([undefined, text(2)])).toBe(`[${text(2)}]`);
  });

  it('gives undefined when nothing is to be answered', () => {
    expect(joinAnswers([undefined, undefined])).toBeUndefined();
    expect(joinAnswers([])).toBeUndefined();
  });
});

describe('answerBatch', () => {
  it('answers a sync batch synchronously, with no promise', () => {
    const members = [{ id: 0 }, { id: 1 }, { id: 2 }];
    const answer = answerBatch(members, undefined, options(plain));
    expect(typeof answer).toBe('string');
    expect(answer).toBe(`[${text(0)},${text(1)},${text(2)}]`);
  });

  it('answers sync members before the first async one at once, then bounds the rest', async () => {
    const seen: number[] = [];
    const answer = answerBatch(
      [{ id: 0 }, { id: 1 }, { id: 2, async: true }, { id: 3 }, { id: 4 }],
      undefined,
      options((member) => {
        seen.push(member.id);
        return plain(member);
      }),
    );
    // Members 0..2 ran in order; 3 and 4 start beside 2 at once (room for 10).
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe(`[${[0, 1, 2, 3, 4].map(text).join(',')}]`);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps request order whatever order the answers settle in', async () => {
    // Each member waits on its own gate; the gates open last member first.
    const members = Array.from({ length: 8 }, (_, id) => ({ id, async: true }));
    const gates = members.map(() => {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      return { promise, open };
    });
    const settled: number[] = [];
    const answering = answerBatch(
      members,
      undefined,
      options(async (member) => {
        await gates[member.id]!.promise;
        settled.push(member.id);
        return text(member.id);
      }),
    );
    for (let id = members.length - 1; id >= 0; id--) {
      gates[id]!.open();
      await sleep(0);
    }
    const answer = await answering;
    expect(settled).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    expect(answer).toBe(`[${members.map((m) => text(m.id)).join(',')}]`);
  });

  it('gives notifications no entry, sync or async', async () => {
    const members: Member[] = [
      { id: 0, notification: true },
      { id: 1 },
      { id: 2, notification: true, async: true },
      { id: 3, async: true, delay: 5 },
      { id: 4, notification: true },
    ];
    expect(await answerBatch(members, undefined, options(plain))).toBe(`[${text(1)},${text(3)}]`);
    const sync = members.map((m) => ({ id: m.id, notification: m.notification ?? false }));
    expect(answerBatch(sync, undefined, options(plain))).toBe(`[${text(1)},${text(3)}]`);
  });

  it('gives undefined for an all-notification batch, sync or async', async () => {
    const sync = [0, 1, 2].map((id) => ({ id, notification: true }));
    expect(answerBatch(sync, undefined, options(plain))).toBeUndefined();
    const async = [0, 1, 2].map((id) => ({ id, notification: true, async: true }));
    const answer = answerBatch(async, undefined, options(plain));
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBeUndefined();
  });

  it('holds the concurrency, counting the first async member', async () => {
    let now = 0;
    let peak = 0;
    const starts: number[] = [];
    const tracked = async (member: Member): Promise<string | undefined> => {
      starts.push(member.id);
      peak = Math.max(peak, ++now);
      await sleep(3);
      now--;
      return text(member.id);
    };
    const members = Array.from({ length: 12 }, (_, id) => ({ id }));
    const pending = answerBatch(members, undefined, options(tracked, 3));
    // Member 0 went async and holds a slot: only members 1 and 2 start beside it.
    expect(starts).toEqual([0, 1, 2]);
    expect(now).toBe(3);
    expect(starts).toEqual([0, 1, 2]);
    expect(await pending).toBe(`[${members.map((m) => text(m.id)).join(',')}]`);
    expect(peak).toBe(3);
    expect(starts).toEqual(members.map((m) => m.id));
  });

  it('runs one async member at a time with concurrency 1', async () => {
    let now = 0;
    let peak = 0;
    const members = Array.from({ length: 5 }, (_, id) => ({ id }));
    const answer = await answerBatch(
      members,
      undefined,
      options(async (member) => {
        peak = Math.max(peak, ++now);
        await sleep(1);
        now--;
        return text(member.id);
      }, 1),
    );
    expect(peak).toBe(1);
    expect(answer).toBe(`[${members.map((m) => text(m.id)).join(',')}]`);
  });

  it('answers one -32003 with id null over maxBatchSize, running no member', () => {
    const answer = vi.fn(plain);
    const members = [{ id: 0 }, { id: 1 }, { id: 2 }];
    expect(answerBatch(members, undefined, options(answer, 10, 2))).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"Batch too large"}}',
    );
    expect(BATCH_TOO_LARGE_TEXT).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"Batch too large"}}',
    );
    expect(answer).not.toHaveBeenCalled();
    // Exactly at the limit is fine.
    expect(answerBatch(members, undefined, options(answer, 10, 3))).toBe(
      `[${text(0)},${text(1)},${text(2)}]`,
    );
  });

  it('passes the scope to every member', async () => {
    const scope = { name: 'scope' };
    const seen = new Set<unknown>();
    await answerBatch([0, 1, 2], scope, {
      maxBatchSize: 10,
      concurrency: 2,
      answer: (id, s) => {
        seen.add(s);
        return id === 0 ? Promise.resolve(text(id)) : text(id);
      },
    });
    expect([...seen]).toEqual([scope]);
  });
});

describe('a member that fails', () => {
  it('rejects the batch once, with no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const answer = answerBatch([0, 1, 2], undefined, {
        maxBatchSize: 10,
        concurrency: 2,
        answer: (n) =>
          n === 1 ? Promise.reject(new Error('member failed')) : Promise.resolve(text(n)),
      });
      await expect(answer).rejects.toThrow('member failed');
      await sleep(20);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('types', () => {
  it('types members and scope from the options', () => {
    const options: BatchScheduling<{ id: number }, undefined> = {
      maxBatchSize: 10,
      concurrency: 2,
      answer: () => undefined,
    };
    // @ts-expect-error the answer must take the batch's member type
    answerBatch([1, 2], undefined, options);
    expect(answerBatch([{ id: 1 }], undefined, options)).toBeUndefined();
  });
});
