import { describe, expect, it } from 'vitest';
import { createIncomingCalls, type IncomingCall } from './incoming.js';

function call(id: number | undefined, log: unknown[]): IncomingCall {
  return { id, abort: (reason) => log.push([id, reason]) };
}

describe('createIncomingCalls', () => {
  it('cancels one request by id, once, and tells whether it must be answered', () => {
    const log: unknown[] = [];
    const table = createIncomingCalls();
    const a = call(1, log);
    const b = call(2, log);
    table.track(a);
    table.track(b);
    const answered = new Error('cancelled');
    expect(table.cancel(1, answered, true)).toBe(a);
    expect(table.cancel(1, answered, true)).toBeUndefined();
    expect(table.unanswered(answered)).toBe(false);
    const silent = new Error('cancelled, no answer');
    expect(table.cancel(2, silent, false)).toBe(b);
    expect(table.unanswered(silent)).toBe(true);
    expect(log).toEqual([
      [1, answered],
      [2, silent],
    ]);
    expect(table.size).toBe(0);
  });

  it('keeps its index by id true across tracks and untracks after the first cancellation', () => {
    const log: unknown[] = [];
    const table = createIncomingCalls();
    table.track(call(1, log));
    expect(table.cancel(9, 'x', true)).toBeUndefined(); // builds the index
    const later = call(2, log);
    table.track(later);
    table.untrack(later);
    expect(table.cancel(2, 'x', true)).toBeUndefined();
    const again = call(3, log);
    table.track(again);
    expect(table.cancel(3, 'x', true)).toBe(again);
  });

  it('aborts every call, notifications included, on close', () => {
    const log: unknown[] = [];
    const table = createIncomingCalls();
    table.track(call(1, log));
    table.track(call(undefined, log));
    table.closeAll('closed');
    expect(log).toEqual([
      [1, 'closed'],
      [undefined, 'closed'],
    ]);
    expect(table.size).toBe(0);
  });

  it('finds calls again once it emptied (its index by id is rebuilt), and keeps silent reasons', () => {
    const log: unknown[] = [];
    const table = createIncomingCalls();
    const first = call(1, log);
    table.track(first);
    const silent = new Error('no answer');
    expect(table.cancel(1, silent, false)).toBe(first); // builds the index, then empties
    expect(table.size).toBe(0);
    expect(table.unanswered(silent)).toBe(true);
    const second = call(1, log);
    const third = call(2, log);
    table.track(second);
    table.track(third);
    expect(table.cancel(2, 'x', true)).toBe(third);
    expect(table.cancel(1, 'y', true)).toBe(second);
    expect(table.cancel(1, 'z', true)).toBeUndefined();
    table.closeAll('closed'); // nothing left: nothing aborted
    expect(log).toEqual([
      [1, silent],
      [2, 'x'],
      [1, 'y'],
    ]);
  });
});
