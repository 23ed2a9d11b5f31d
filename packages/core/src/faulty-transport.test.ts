import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionClosedError } from './errors.js';
import {
  createFaultyTransport,
  type FaultName,
  type FaultyTransportOptions,
  type InjectedFault,
} from './faulty-transport.js';
import { createMemoryTransportPair } from './memory-transport.js';
import type { Transport } from './transport.js';

const MESSAGES = ['{"a":1}', '{"b":22}', '{"c":333}', '{"d":4444}', '{"e":55555}'];

interface Wired {
  faulty: ReturnType<typeof createFaultyTransport>;
  peer: Transport;
  /** What the peer received from the faulty side. */
  atPeer: string[];
  /** What the faulty side's handler received from the peer. */
  atFaulty: string[];
  closes: (Error | undefined)[];
}

async function wire(options: FaultyTransportOptions): Promise<Wired> {
  const [a, peer] = createMemoryTransportPair();
  const faulty = createFaultyTransport(a, options);
  const atPeer: string[] = [];
  const atFaulty: string[] = [];
  const closes: (Error | undefined)[] = [];
  await faulty.start({ onMessage: (m) => atFaulty.push(m), onClose: (e) => closes.push(e) });
  await peer.start({ onMessage: (m) => atPeer.push(m), onClose: () => {} });
  return { faulty, peer, atPeer, atFaulty, closes };
}

/** Sends every message from the faulty side and lets every timer run out. */
async function sendAll(w: Wired, texts = MESSAGES): Promise<void> {
  const sends = Promise.all(texts.map((t) => w.faulty.send(t).catch(() => {})));
  await vi.runAllTimersAsync();
  await sends;
}

describe('createFaultyTransport', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('without faults, passes everything through in order, both ways', async () => {
    vi.useFakeTimers();
    const w = await wire({ seed: 1 });
    await sendAll(w);
    for (const t of MESSAGES) await w.peer.send(t);
    await vi.runAllTimersAsync();
    expect(w.atPeer).toEqual(MESSAGES);
    expect(w.atFaulty).toEqual(MESSAGES);
    expect(Object.values(w.faulty.injected).every((n) => n === 0)).toBe(true);
    await w.faulty.close();
    await vi.runAllTimersAsync();
    expect(w.closes).toEqual([undefined]);
  });

  const cases: [FaultName, (atPeer: string[]) => void][] = [
    ['drop', (got) => expect(got).toEqual([])],
    ['duplicate', (got) => expect(got).toEqual(MESSAGES.flatMap((m) => [m, m]))],
    ['delay', (got) => expect(got).toEqual(MESSAGES)],
    [
      'truncate',
      (got) => {
        expect(got).toHaveLength(MESSAGES.length);
        got.forEach((t, i) => {
          expect(t.length).toBeGreaterThan(0);
          expect(t.length).toBeLessThan(MESSAGES[i]!.length);
          expect(MESSAGES[i]!.startsWith(t)).toBe(true);
        });
      },
    ],
    [
      'corrupt',
      (got) => {
        expect(got).toHaveLength(MESSAGES.length);
        got.forEach((t, i) => {
          const original = MESSAGES[i]!;
          expect(t).toHaveLength(original.length);
          const changed = [...t].flatMap((c, j) => (c === original[j] ? [] : [c]));
          expect(changed).toHaveLength(1);
          expect(changed[0]!.charCodeAt(0)).toBeLessThan(0x20);
          expect(() => JSON.parse(t)).toThrow();
        });
      },
    ],
    [
      'split',
      (got) => {
        expect(got).toHaveLength(2 * MESSAGES.length);
        MESSAGES.forEach((m, i) => {
          expect(got[2 * i]!.length).toBeGreaterThan(0);
          expect(got[2 * i + 1]!.length).toBeGreaterThan(0);
          expect(got[2 * i]! + got[2 * i + 1]!).toBe(m);
        });
      },
    ],
    // Every other message is held and released by the next one; the last goes alone.
    [
      'reorder',
      (got) =>
        expect(got).toEqual([MESSAGES[1], MESSAGES[0], MESSAGES[3], MESSAGES[2], MESSAGES[4]]),
    ],
    [
      'merge',
      (got) =>
        expect(got).toEqual([
          MESSAGES[0]! + MESSAGES[1]!,
          MESSAGES[2]! + MESSAGES[3]!,
          MESSAGES[4],
        ]),
    ],
  ];

  it.each(cases)('%s: does what it says when it always hits', async (fault, check) => {
    vi.useFakeTimers();
    const w = await wire({ seed: 7, faults: { [fault]: 1 } });
    await sendAll(w);
    check(w.atPeer);
    expect(w.faulty.injected[fault]).toBe(fault === 'reorder' || fault === 'merge' ? 3 : 5);
  });

  it('stallReader: holds this message and those behind it for stallMs', async () => {
    vi.useFakeTimers();
    const w = await wire({
      seed: 3,
      faults: { stallReader: 1 },
      stallMs: 1000,
      direction: 'received',
    });
    await w.peer.send('x');
    await w.peer.send('y');
    await vi.advanceTimersByTimeAsync(999);
    expect(w.atFaulty).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(w.atFaulty).toEqual(['x']);
    // The second stalls again behind the first.
    await vi.advanceTimersByTimeAsync(1000);
    expect(w.atFaulty).toEqual(['x', 'y']);
  });

  it('stallReader on sending: send() resolves only after the stall', async () => {
    vi.useFakeTimers();
    const w = await wire({ seed: 3, faults: { stallReader: 1 }, stallMs: 500 });
    let resolved = false;
    void w.faulty.send('x').then(() => {
      resolved = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(resolved).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(resolved).toBe(true);
    expect(w.atPeer).toEqual(['x']);
  });

  it('closeMidMessage: the peer gets a prefix, then both sides close with a clear error', async () => {
    const w = await wire({ seed: 5, faults: { closeMidMessage: 1 } });
    const sent = w.faulty.send(MESSAGES[0]!);
    await expect(sent).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(sent).rejects.toThrow(/mid-message/);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(w.atPeer).toHaveLength(1);
    expect(MESSAGES[0]!.startsWith(w.atPeer[0]!)).toBe(true);
    expect(w.atPeer[0]!.length).toBeLessThan(MESSAGES[0]!.length);
    expect(w.closes).toHaveLength(1);
    expect(w.closes[0]).toBeInstanceOf(ConnectionClosedError);
    await expect(w.faulty.send('more')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('closeMidMessage on receiving: the handler gets a prefix, then onClose with the error', async () => {
    const w = await wire({ seed: 5, faults: { closeMidMessage: 1 }, direction: 'received' });
    await w.peer.send(MESSAGES[2]!);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(w.atFaulty).toHaveLength(1);
    expect(MESSAGES[2]!.startsWith(w.atFaulty[0]!)).toBe(true);
    expect(w.closes).toHaveLength(1);
    expect(w.closes[0]).toBeInstanceOf(ConnectionClosedError);
  });

  it('hits only the direction asked for', async () => {
    vi.useFakeTimers();
    const w = await wire({ seed: 9, faults: { drop: 1 }, direction: 'received' });
    await sendAll(w);
    for (const t of MESSAGES) await w.peer.send(t);
    await vi.runAllTimersAsync();
    expect(w.atPeer).toEqual(MESSAGES);
    expect(w.atFaulty).toEqual([]);
  });

  it('is reproducible: the same seed gives the same faults, another seed others', async () => {
    vi.useFakeTimers();
    const faults = {
      drop: 0.2,
      duplicate: 0.2,
      truncate: 0.2,
      corrupt: 0.2,
      split: 0.2,
      reorder: 0.2,
      merge: 0.2,
      delay: 0.3,
    };
    const texts = Array.from({ length: 60 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"result":${i}}`);
    const run = async (seed: number) => {
      const log: InjectedFault[] = [];
      const w = await wire({ seed, faults, onFault: (f) => log.push(f) });
      await sendAll(w, texts);
      for (const t of texts) await w.peer.send(t);
      await vi.runAllTimersAsync();
      return { atPeer: w.atPeer, atFaulty: w.atFaulty, log, injected: { ...w.faulty.injected } };
    };
    const first = await run(1234);
    const again = await run(1234);
    const other = await run(4321);
    expect(again).toEqual(first);
    expect(other.atPeer).not.toEqual(first.atPeer);
    expect(first.log.length).toBeGreaterThan(20);
    expect(new Set(first.log.map((f) => f.direction))).toEqual(new Set(['sent', 'received']));
    expect(first.injected.drop).toBe(first.log.filter((f) => f.fault === 'drop').length);
  });

  it('injects nothing while disabled, and draws nothing meanwhile', async () => {
    vi.useFakeTimers();
    const w = await wire({ seed: 12, faults: { drop: 0.5 }, enabled: false });
    await sendAll(w);
    expect(w.atPeer).toEqual(MESSAGES);
    w.faulty.enabled = true;
    await sendAll(w);
    const fresh = await wire({ seed: 12, faults: { drop: 0.5 } });
    await sendAll(fresh);
    // The same faults as a transport that was on from the start.
    expect(w.atPeer.slice(MESSAGES.length)).toEqual(fresh.atPeer);
    expect(fresh.atPeer.length).toBeLessThan(MESSAGES.length);
    expect(w.faulty.enabled).toBe(true);
  });

  it('picks a random seed when none is given, and tells it', () => {
    const [a] = createMemoryTransportPair();
    const faulty = createFaultyTransport(a);
    expect(Number.isInteger(faulty.seed)).toBe(true);
    expect(faulty.seed).toBeGreaterThanOrEqual(0);
    expect(createFaultyTransport(a, { seed: -1 }).seed).toBe(0xffffffff);
  });

  it('refuses probabilities outside 0..1, unknown faults and negative durations', () => {
    const [a] = createMemoryTransportPair();
    expect(() => createFaultyTransport(a, { faults: { drop: 1.5 } })).toThrow(RangeError);
    expect(() => createFaultyTransport(a, { faults: { drop: Number.NaN } })).toThrow(RangeError);
    expect(() =>
      createFaultyTransport(a, {
        faults: { lose: 0.5 } as unknown as FaultyTransportOptions['faults'],
      }),
    ).toThrow(/Unknown fault "lose"/);
    expect(() => createFaultyTransport(a, { stallMs: -1 })).toThrow(RangeError);
  });

  it('passes the close and the send options through', async () => {
    const [a, b] = createMemoryTransportPair();
    const seen: unknown[] = [];
    const spy: Transport = {
      start: (h) => a.start(h),
      send: (m, o) => {
        seen.push(o?.signal);
        return a.send(m, o);
      },
      close: (r) => a.close(r),
    };
    const faulty = createFaultyTransport(spy, { seed: 2 });
    const closes: (Error | undefined)[] = [];
    await faulty.start({ onMessage: () => {}, onClose: (e) => closes.push(e) });
    await b.start({ onMessage: () => {}, onClose: () => {} });
    const signal = new AbortController().signal;
    await faulty.send('x', { signal });
    expect(seen).toEqual([signal]);
    await faulty.close(new Error('bye'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closes.map((e) => e?.message)).toEqual(['bye']);
  });
});
