import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createIncomingCalls } from './incoming.js';
import { createPendingCalls } from './pending.js';
import { TurnoverMap } from './turnover-map.js';

// A full garbage collection on demand: it moves what lives to the old generation, as a process
// that has run a while has done.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!
    .space_used_size;
}

describe('TurnoverMap', () => {
  it('holds entries as a Map does: set, get, has, delete, size, clear', () => {
    const map = new TurnoverMap<number | string, string>();
    map.set(1, 'one');
    map.set('1', 'string one');
    map.set(-0, 'zero');
    expect(map.size).toBe(3);
    expect(map.get(1)).toBe('one');
    expect(map.get('1')).toBe('string one');
    expect(map.get(0)).toBe('zero');
    expect(map.has(2)).toBe(false);
    map.set(1, 'uno');
    expect(map.size).toBe(3);
    expect(map.get(1)).toBe('uno');
    expect(map.delete(1)).toBe(true);
    expect(map.delete(1)).toBe(false);
    expect([...map.keys()]).toEqual(['1', 0]);
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get('1')).toBeUndefined();
  });

  it('keeps its entries and their order through its copies', () => {
    const map = new TurnoverMap<number, number>();
    // 10,000 sets with 64 keys live at a time: two copies at least.
    for (let i = 0; i < 10_000; i++) {
      map.set(i, i * 2);
      if (i >= 64) map.delete(i - 64);
    }
    expect(map.size).toBe(64);
    const keys = Array.from({ length: 64 }, (_, k) => 10_000 - 64 + k);
    expect([...map.keys()]).toEqual(keys);
    expect([...map.values()]).toEqual(keys.map((k) => k * 2));
    // A key set again keeps its place, as in a Map.
    map.set(keys[0]!, 0);
    expect(map.keys().next().value).toBe(keys[0]);
  });

  it('keeps a table larger than its copy interval whole', () => {
    const map = new TurnoverMap<number, number>();
    for (let i = 0; i < 20_000; i++) map.set(i, i);
    for (let i = 20_000; i < 30_000; i++) {
      map.set(i, i);
      map.delete(i - 20_000);
    }
    expect(map.size).toBe(20_000);
    expect(map.keys().next().value).toBe(10_000);
  });

  /**
   * Runs 200,000 calls through a long-lived table, 64 at a time, after a full GC has moved the
   * table to the old generation (as in a process that has run a while), and returns how much the
   * old generation grew. With a `Map` or `Set`, every table left behind by a rehash stayed in the
   * old generation pointing at the calls it held, and young collections promoted them.
   */
  async function oldGrowth(
    start: (id: number) => void,
    end: (id: number) => void,
  ): Promise<number> {
    let id = 0;
    const run = async (calls: number): Promise<void> => {
      for (let i = 0; i < calls; i++, id++) {
        start(id);
        if (i >= 64) end(id - 64);
        if (id % 64 === 0) await null;
      }
      for (let j = id - 64; j < id; j++) end(j);
    };
    await run(1_000);
    gc();
    gc();
    const before = oldSpaceUsed();
    await run(200_000);
    return oldSpaceUsed() - before;
  }

  it('lets the calls of a long-lived pending table die young after a full GC', async () => {
    // With a `Map`, the old generation grew by about 30 MB.
    const pending = createPendingCalls();
    const grown = await oldGrowth(
      (id) => {
        pending.add(id, 'm').then(
          () => undefined,
          () => undefined,
        );
      },
      (id) => pending.settle({ jsonrpc: '2.0', id, result: id }),
    );
    expect(pending.size).toBe(0);
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  });

  it('lets the calls of a long-lived incoming table die young after a full GC', async () => {
    const running = createIncomingCalls();
    // The test's own calls in flight, in a ring (a `Map` here would promote them itself).
    const ring: Array<{ id: number; abort(): void }> = new Array(128);
    const grown = await oldGrowth(
      (id) => {
        const call = { id, abort() {} };
        ring[id % 128] = call;
        running.track(call);
      },
      (id) => {
        running.untrack(ring[id % 128]!);
      },
    );
    expect(running.size).toBe(0);
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  });
});
