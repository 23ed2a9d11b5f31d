import { describe, expect, it } from 'vitest';
import { FifoQueue } from './fifo-queue.js';

describe('FifoQueue', () => {
  it('gives items back in the order they came, and undefined once empty', () => {
    const queue = new FifoQueue<number>();
    expect(queue.shift()).toBeUndefined();
    for (const n of [1, 2, 3]) queue.push(n);
    expect(queue.length).toBe(3);
    expect([queue.at(0), queue.at(2), queue.at(3), queue.at(-1)]).toEqual([
      1,
      3,
      undefined,
      undefined,
    ]);
    expect([queue.shift(), queue.shift()]).toEqual([1, 2]);
    queue.push(4);
    expect([queue.length, queue.at(0), queue.at(1)]).toEqual([2, 3, 4]);
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual([3, 4, undefined]);
    expect(queue.length).toBe(0);
  });

  it('stays in order through many cuts of its emptied front, at every length', () => {
    const queue = new FifoQueue<number>();
    let next = 0;
    let taken = 0;
    // Grows to 1,000, then shrinks, then grows again: every cut lands somewhere different.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 1_000; i++) {
        queue.push(next++);
        if (i % 3 === 0) expect(queue.shift()).toBe(taken++);
      }
      expect(queue.length).toBe(next - taken);
      expect(queue.at(queue.length - 1)).toBe(next - 1);
      while (queue.length > 100) expect(queue.shift()).toBe(taken++);
      expect(queue.at(0)).toBe(taken);
    }
  });

  it('clear() takes everything out', () => {
    const queue = new FifoQueue<string>();
    queue.push('a');
    queue.clear();
    expect([queue.length, queue.shift(), queue.at(0)]).toEqual([0, undefined, undefined]);
    queue.push('b');
    expect(queue.shift()).toBe('b');
  });
});
