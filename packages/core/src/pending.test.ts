import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortError, MethodNotFoundError, TimeoutError } from './errors.js';
import { createPendingCalls } from './pending.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createPendingCalls', () => {
  it('arms every timeout with one shared function, and a refresh re-arms it', async () => {
    vi.useFakeTimers();
    const armed = vi.spyOn(globalThis, 'setTimeout');
    const pending = createPendingCalls();
    const gaveUp: unknown[] = [];
    const onGiveUp = (reason: string, id: unknown) => gaveUp.push([reason, id]);
    const a = pending.add(1, 'slow', { timeout: 100, onGiveUp });
    const b = pending.add(2, 'slow', { timeout: 200, onGiveUp });
    // Counting work: no closure per call, the entry rides along as the timer's argument.
    expect(armed).toHaveBeenCalledTimes(2);
    expect(armed.mock.calls[0]![0]).toBe(armed.mock.calls[1]![0]);
    vi.advanceTimersByTime(80);
    expect(pending.refresh(1)).toBe(true);
    expect(armed.mock.calls[2]![0]).toBe(armed.mock.calls[0]![0]);
    vi.advanceTimersByTime(80); // 160 ms: call 1 was refreshed at 80, so it waits until 180
    expect(pending.size).toBe(2);
    vi.advanceTimersByTime(30);
    await expect(a).rejects.toBeInstanceOf(TimeoutError);
    await expect(a).rejects.toThrow('Request timed out after 100 ms');
    vi.advanceTimersByTime(20);
    await expect(b).rejects.toBeInstanceOf(TimeoutError);
    expect(gaveUp).toEqual([
      ['timeout', 1],
      ['timeout', 2],
    ]);
    armed.mockRestore();
  });

  it('fails calls under the safety net 1 to 1.1 fallback timeouts after they started, with no timer per call', async () => {
    vi.useFakeTimers();
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const pending = createPendingCalls({ fallbackTimeout: 1_000 });
    const gaveUp: unknown[] = [];
    const net = { fallback: true, onGiveUp: (_: string, id: unknown) => gaveUp.push(id) };
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 1_000; i++) {
      calls.push(pending.add(i, 'slow', net).catch((e: unknown) => e));
      if (i === 499) vi.advanceTimersByTime(150);
    }
    // Counting work: one sweep timer for the thousand calls, no timeout, no clock read per call.
    expect(intervals).toHaveBeenCalledTimes(1);
    expect(timeouts).not.toHaveBeenCalled();
    expect(pending.refresh(0)).toBe(true); // at 150 ms: call 0 waits again from now
    expect(pending.settle({ jsonrpc: '2.0', id: 1, result: 'in time' })).toBe(true);
    vi.advanceTimersByTime(849); // 999 ms
    expect(pending.size).toBe(999);
    vi.advanceTimersByTime(101); // 1,100 ms: the calls started at 0 ms are due
    expect(gaveUp).toHaveLength(498);
    expect(gaveUp.slice(0, 2)).toEqual([2, 3]);
    vi.advanceTimersByTime(150); // 1,250 ms: the calls started at 150 ms, and call 0
    expect(pending.size).toBe(0);
    expect(gaveUp).toHaveLength(999);
    expect(gaveUp.slice(498, 500)).toEqual([0, 500]);
    const error = await calls[2];
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeout: 1_000, method: 'slow', id: 2 });
    expect(await calls[1]).toBe('in time');
    timeouts.mockRestore();
    intervals.mockRestore();
  });

  it('does not hold the process open for the safety net, and stops sweeping when no call is under it', () => {
    vi.useFakeTimers();
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const cleared = vi.spyOn(globalThis, 'clearInterval');
    const pending = createPendingCalls({ fallbackTimeout: 1_000 });
    void pending.add(1, 'slow', { fallback: true });
    void pending.add(2, 'slow', { timeout: 0, fallback: true }); // a timeout of its own: none
    void pending.add(3, 'slow'); // not under the net
    expect(intervals).toHaveBeenCalledTimes(1);
    const sweeper = intervals.mock.results[0]!.value as NodeJS.Timeout;
    expect(sweeper.hasRef()).toBe(false);
    pending.settle({ jsonrpc: '2.0', id: 1, result: 1 });
    vi.advanceTimersByTime(100);
    expect(cleared).toHaveBeenCalledWith(sweeper);
    vi.advanceTimersByTime(2_000);
    expect(pending.size).toBe(2); // calls 2 and 3 wait on
    intervals.mockRestore();
    cleared.mockRestore();
  });

  it('resolves and rejects by id, and forgets settled calls', async () => {
    const pending = createPendingCalls();
    const a = pending.add(1, 'sum');
    const b = pending.add('b', 'missing');
    expect(pending.size).toBe(2);
    expect(pending.settle({ jsonrpc: '2.0', id: 1, result: 3 })).toBe(true);
    expect(
      pending.settle({
        jsonrpc: '2.0',
        id: 'b',
        error: { code: -32601, message: 'Method not found' },
      }),
    ).toBe(true);
    await expect(a).resolves.toBe(3);
    const error = await b.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MethodNotFoundError);
    expect(error).toMatchObject({ method: 'missing', id: 'b' });
    expect(pending.size).toBe(0);
    expect(pending.settle({ jsonrpc: '2.0', id: 1, result: 3 })).toBe(false);
  });

  it('keeps number and string ids apart', () => {
    const pending = createPendingCalls();
    void pending.add(1, 'a');
    expect(pending.has('1')).toBe(false);
    expect(pending.settle({ jsonrpc: '2.0', id: '1', result: 0 })).toBe(false);
    expect(() => pending.add(1, 'again')).toThrow(/already pending/);
  });

  it('gets one call by its id, and nothing once it settled', () => {
    const pending = createPendingCalls();
    void pending.add(1, 'a');
    void pending.add('1', 'b');
    expect(pending.get(1)).toMatchObject({ id: 1, method: 'a' });
    expect(pending.get('1')).toMatchObject({ id: '1', method: 'b' });
    expect(pending.get(2)).toBeUndefined();
    pending.settle({ jsonrpc: '2.0', id: 1, result: 0 });
    expect(pending.get(1)).toBeUndefined();
  });

  it('times out, removes the entry and reports the give-up', async () => {
    vi.useFakeTimers();
    const pending = createPendingCalls();
    const onGiveUp = vi.fn();
    const call = pending.add(5, 'slow', { timeout: 100, onGiveUp });
    const outcome = call.catch((e: unknown) => e);
    vi.advanceTimersByTime(99);
    expect(pending.size).toBe(1);
    vi.advanceTimersByTime(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ method: 'slow', id: 5, timeout: 100 });
    expect(onGiveUp).toHaveBeenCalledWith('timeout', 5, 'slow', undefined);
    expect(pending.size).toBe(0);
  });

  it('aborts through a signal, before and during the call', async () => {
    const pending = createPendingCalls();
    const early = new AbortController();
    early.abort('before');
    await expect(pending.add(1, 'a', { signal: early.signal })).rejects.toBeInstanceOf(AbortError);
    expect(pending.size).toBe(0);

    const controller = new AbortController();
    const onGiveUp = vi.fn();
    const call = pending.add(2, 'b', { signal: controller.signal, onGiveUp });
    controller.abort('stop');
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toBe('stop');
    expect(onGiveUp).toHaveBeenCalledWith('abort', 2, 'b', 'stop');
    expect(pending.size).toBe(0);
  });

  it('rejects everything at once and leaves nothing behind', async () => {
    const pending = createPendingCalls();
    const controller = new AbortController();
    const calls = [1, 2, 3].map((id) =>
      pending
        .add(id, `m${id}`, { timeout: 10_000, signal: controller.signal })
        .catch((e: Error) => e.message),
    );
    pending.rejectAll((call) => new Error(`closed ${call.method}`));
    expect(await Promise.all(calls)).toEqual(['closed m1', 'closed m2', 'closed m3']);
    expect(pending.size).toBe(0);
    controller.abort(); // listeners were removed: nothing happens
  });

  it('shares one listener among many calls on one signal, and aborts them all', async () => {
    const pending = createPendingCalls();
    const controller = new AbortController();
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 50_000; i++) {
      calls.push(pending.add(i, 'm', { signal: controller.signal }).catch((e: unknown) => e));
    }
    // Answer half of them: each answer detaches from the shared signal in constant time.
    for (let i = 0; i < 50_000; i += 2) pending.settle({ jsonrpc: '2.0', id: i, result: i });
    controller.abort();
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o instanceof AbortError)).toHaveLength(25_000);
    expect(pending.size).toBe(0);
  });

  it('leaks nothing over many timed-out and aborted calls', async () => {
    const pending = createPendingCalls();
    const controllers: AbortController[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 10_000; i++) {
      const controller = new AbortController();
      controllers.push(controller);
      calls.push(
        pending.add(i, 'm', { signal: controller.signal, timeout: 60_000 }).catch(() => 0),
      );
    }
    for (const controller of controllers) controller.abort();
    await Promise.all(calls);
    expect(pending.size).toBe(0);
  });
});
