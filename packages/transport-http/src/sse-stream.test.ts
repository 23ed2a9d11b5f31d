import { describe, expect, it } from 'vitest';
import { createMemoryEventStore } from './event-store.js';
import { createKeepAlive, openSseStream } from './sse-stream.js';

const decoder = new TextDecoder();

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
  }
}

describe('openSseStream', () => {
  it('gives every event an id from the store, and replays them after an id', async () => {
    const store = createMemoryEventStore();
    const stream = openSseStream({
      streamId: 's',
      store,
      keepAlive: undefined,
      maxBufferedEvents: 10,
      maxBufferedBytes: 1024 * 1024,
      onGone: () => {},
      owner: undefined,
    });
    await stream.send('{"a":1}');
    await stream.send('{"a":2}');
    stream.end();
    expect(await readAll(stream.body)).toBe('id: s_1\ndata: {"a":1}\n\nid: s_2\ndata: {"a":2}\n\n');
    const replayed: string[] = [];
    expect(await store.replayAfter('s_1', (id, m) => void replayed.push(`${id} ${m}`))).toBe('s');
    expect(replayed).toEqual(['s_2 {"a":2}']);
  });

  it('drops the stream when a reader leaves more than maxBufferedEvents queued (events stay stored)', async () => {
    const store = createMemoryEventStore();
    let gone = 0;
    const stream = openSseStream({
      streamId: 's',
      store,
      keepAlive: undefined,
      maxBufferedEvents: 3,
      maxBufferedBytes: 1024 * 1024,
      onGone: () => gone++,
      owner: undefined,
    });
    for (let i = 1; i <= 6; i++) await stream.send(`{"n":${i}}`);
    expect(stream.open).toBe(false);
    expect(gone).toBe(1);
    // Dropped, not ended: its body is errored, what it queued thrown away.
    await expect(readAll(stream.body)).rejects.toThrow(/fell behind/);
    const later: string[] = [];
    await store.replayAfter('s_1', (_id, m) => void later.push(m));
    expect(later).toEqual(['{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}', '{"n":6}']);
  });

  it('drops the stream when a reader leaves more than maxBufferedBytes queued, counting what it took', async () => {
    let gone = 0;
    const stream = openSseStream({
      streamId: 's',
      store: undefined,
      keepAlive: undefined,
      maxBufferedEvents: 1000,
      maxBufferedBytes: 4096,
      onGone: () => gone++,
      owner: undefined,
    });
    const kib = `"${'x'.repeat(1000)}"`;
    const reader = stream.body.getReader();
    // A reader that keeps up never reaches the bound, however much goes through.
    for (let i = 0; i < 20; i++) {
      void stream.send(kib);
      await reader.read();
    }
    expect(stream.open).toBe(true);
    // One that stops: four events of about 1 KiB fit, the fifth finds the bound reached.
    for (let i = 0; i < 4; i++) void stream.send(kib);
    expect(stream.open).toBe(true);
    void stream.send(kib);
    expect(stream.open).toBe(false);
    expect(gone).toBe(1);
    await expect(reader.read()).rejects.toThrow(/fell behind/);
  });

  it('writes an event larger than maxBufferedBytes when nothing is queued', async () => {
    const stream = openSseStream({
      streamId: 's',
      store: undefined,
      keepAlive: undefined,
      maxBufferedEvents: 1000,
      maxBufferedBytes: 100,
      onGone: () => {},
      owner: undefined,
    });
    void stream.send(`"${'x'.repeat(1000)}"`);
    expect(stream.open).toBe(true);
    stream.end();
    expect(await readAll(stream.body)).toContain('x'.repeat(1000));
  });

  it('makes senders wait for the reader past 64 queued events (backpressure), then lets them go on', async () => {
    const stream = openSseStream({
      streamId: 's',
      store: undefined,
      keepAlive: undefined,
      maxBufferedEvents: 1000,
      maxBufferedBytes: 1024 * 1024,
      onGone: () => {},
      owner: undefined,
    });
    let sent = 0;
    const sending = (async () => {
      for (let i = 0; i < 100; i++) {
        await stream.send('{}');
        sent++;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toBe(63);
    expect(stream.open).toBe(true);
    const reader = stream.body.getReader();
    for (let i = 0; i < 100; i++) await reader.read();
    await sending;
    expect(sent).toBe(100);
    stream.end();
  });

  it('sends a keep-alive comment on a silent stream', async () => {
    const stream = openSseStream({
      streamId: 's',
      store: undefined,
      keepAlive: createKeepAlive(10),
      maxBufferedEvents: 10,
      maxBufferedBytes: 1024 * 1024,
      onGone: () => {},
      owner: undefined,
    });
    const reader = stream.body.getReader();
    const { value } = await reader.read();
    expect(decoder.decode(value)).toBe(': keep-alive\n\n');
    stream.end();
    await reader.cancel();
  });
});

describe('createMemoryEventStore bounds', () => {
  it('keeps at most maxEvents, and none older than maxAge', async () => {
    let now = 0;
    const store = createMemoryEventStore({ maxEvents: 2, maxAge: 100, now: () => now });
    const a = await store.append('s', 'a');
    await store.append('s', 'b');
    await store.append('s', 'c');
    expect(await store.replayAfter(a, () => {})).toBeUndefined();
    now = 500;
    const d = await store.append('t', 'd');
    const seen: string[] = [];
    expect(await store.replayAfter(d, (_id, m) => void seen.push(m))).toBe('t');
    expect(seen).toEqual([]);
    expect(() => createMemoryEventStore({ maxEvents: 0 })).toThrow(RangeError);
  });

  it("replays the later events of the id's stream in order, across many evictions", async () => {
    const store = createMemoryEventStore({ maxEvents: 300 });
    const ids: string[] = [];
    // Ten times the bound: the oldest go one by one, the queues are cut down again and again.
    for (let i = 0; i < 3000; i++) ids.push(await store.append(i % 3 === 0 ? 'a' : 'b_x', `m${i}`));
    // 'a' keeps its last 300 (from m2100), whatever 'b_x' writes.
    for (const gone of [ids[0]!, ids[2097]!]) {
      expect(await store.replayAfter(gone, () => {})).toBeUndefined();
    }
    const seen: string[] = [];
    expect(await store.replayAfter(ids[2100]!, (id, m) => void seen.push(`${id} ${m}`))).toBe('a');
    const expected = [];
    for (let i = 2101; i < 3000; i++) if (i % 3 === 0) expected.push(`a_${i + 1} m${i}`);
    expect(seen).toEqual(expected);
    const other: string[] = [];
    // A stream id holding the separator: the sequence is what follows the last one.
    expect(await store.replayAfter(ids[2998]!, (_id, m) => void other.push(m))).toBe('b_x');
    expect(other).toEqual(['m2999']);
    expect(await store.replayAfter(ids[2999]!, () => {})).toBe('b_x');
  });

  it("one stream's flood does not push out another stream's events", async () => {
    const store = createMemoryEventStore();
    const first = await store.append('victim', 'v0');
    await store.append('victim', 'the answer');
    for (let i = 0; i < 1100; i++) await store.append('flood', `f${i}`);
    const seen: string[] = [];
    expect(await store.replayAfter(first, (_id, m) => void seen.push(m))).toBe('victim');
    expect(seen).toEqual(['the answer']);
  });

  it('bounds each stream by bytes, keeping its newest event whatever its size', async () => {
    const store = createMemoryEventStore({ maxStreamBytes: 1000 });
    const a = await store.append('s', 'x'.repeat(400));
    const b = await store.append('s', 'y'.repeat(400));
    const c = await store.append('s', 'z'.repeat(400)); // 3 × (400 + 64) > 1000: `a` goes
    expect(await store.replayAfter(a, () => {})).toBeUndefined();
    const seen: string[] = [];
    expect(await store.replayAfter(b, (_id, m) => void seen.push(m))).toBe('s');
    expect(seen).toEqual(['z'.repeat(400)]);
    await store.append('s', 'w'.repeat(5000)); // alone over the bound: kept, the rest goes
    expect(await store.replayAfter(c, () => {})).toBeUndefined();
    expect(() => createMemoryEventStore({ maxStreamBytes: 0 })).toThrow(RangeError);
  });

  it('bounds all streams together by bytes: the stream written to least recently gives first', async () => {
    const store = createMemoryEventStore({ maxBytes: 3 * (100 + 64) });
    const quiet = await store.append('quiet', 'q'.repeat(100));
    const busy = await store.append('busy', 'b'.repeat(100));
    await store.append('busy', 'b'.repeat(100));
    expect(await store.replayAfter(quiet, () => {})).toBe('quiet');
    await store.append('busy', 'b'.repeat(100)); // over the total: 'quiet' was written to first
    expect(await store.replayAfter(quiet, () => {})).toBeUndefined();
    expect(await store.replayAfter(busy, () => {})).toBe('busy');
    expect(() => createMemoryEventStore({ maxBytes: 0 })).toThrow(RangeError);
  });

  it('knows only the ids it gave', async () => {
    const store = createMemoryEventStore();
    const id = await store.append('s', 'm');
    expect(id).toBe('s_1');
    for (const unknown of ['t_1', 's_2', 's_0', 's_1.0', 's_01', 's_', '_1', 's1', '', 's_1e0']) {
      expect(await store.replayAfter(unknown, () => {})).toBeUndefined();
    }
    expect(await store.replayAfter(id, () => {})).toBe('s');
  });

  it('forgets everything past maxAge and starts again', async () => {
    let now = 0;
    const store = createMemoryEventStore({ maxEvents: 10, maxAge: 100, now: () => now });
    const old = [];
    for (let i = 0; i < 5; i++) old.push(await store.append('s', `old${i}`));
    now = 1000;
    const fresh = await store.append('s', 'new0');
    await store.append('s', 'new1');
    expect(await store.replayAfter(old[4]!, () => {})).toBeUndefined();
    const seen: string[] = [];
    expect(await store.replayAfter(fresh, (_id, m) => void seen.push(m))).toBe('s');
    expect(seen).toEqual(['new1']);
  });
});
