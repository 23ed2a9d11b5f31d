import { describe, expect, it, vi } from 'vitest';
import { watchSends } from './send-watch.js';

/** A promise and its settlers, with the handlers attached to it counted. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const then = vi.spyOn(promise, 'then');
  return { promise, resolve, reject, then };
}

describe('watchSends', () => {
  it('attaches one handler to a promise many sends share, and hands each failure its details', async () => {
    const failed: [string, number, string][] = [];
    const watch = watchSends<number, string>((error, id, method) =>
      failed.push([(error as Error).message, id, method]),
    );
    const turn = deferred();
    for (let id = 1; id <= 3; id++) watch(turn.promise, id, `m${id}`);
    expect(turn.then).toHaveBeenCalledTimes(1);
    turn.reject(new Error('EPIPE'));
    await vi.waitFor(() => expect(failed).toHaveLength(3));
    expect(failed).toEqual([
      ['EPIPE', 1, 'm1'],
      ['EPIPE', 2, 'm2'],
      ['EPIPE', 3, 'm3'],
    ]);
  });

  it('watches each new promise, and a settled one anew when it is handed out again', async () => {
    const failed: number[] = [];
    const watch = watchSends<number, undefined>((_error, id) => failed.push(id));
    const first = deferred();
    watch(first.promise, 1, undefined);
    first.resolve();
    await first.promise;
    await Promise.resolve();
    const second = deferred();
    watch(second.promise, 2, undefined);
    // The first promise again, after it settled: a new watch (its old handler has run).
    watch(first.promise, 3, undefined);
    expect([first.then.mock.calls.length, second.then.mock.calls.length]).toEqual([2, 1]);
    second.reject(new Error('closed'));
    await vi.waitFor(() => expect(failed).toEqual([2]));
  });

  it('throws for a send that returned no promise, as `.then()` on it would, and keeps nothing', () => {
    const watch = watchSends<number, undefined>(() => {});
    for (let i = 0; i < 2; i++) {
      expect(() => watch(undefined as unknown as Promise<void>, i, undefined)).toThrow(TypeError);
    }
    expect(() => watch(true as unknown as Promise<void>, 3, undefined)).toThrow(TypeError);
  });
});
