import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, encodeSseEvent, type SseEvent } from './sse.js';

function parseAll(chunks: readonly string[]): { events: SseEvent[]; retries: number[] } {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = createSseParser(
    (e) => events.push(e),
    (ms) => retries.push(ms),
  );
  for (const chunk of chunks) parser.push(chunk);
  return { events, retries };
}

describe('encodeSseEvent', () => {
  it('writes the id, then one data line, then a blank line', () => {
    expect(encodeSseEvent('{"a":1}', 's_1')).toBe('id: s_1\ndata: {"a":1}\n\n');
    expect(encodeSseEvent('{"a":1}')).toBe('data: {"a":1}\n\n');
    expect(encodeSseEvent('x', undefined, 'ping')).toBe('event: ping\ndata: x\n\n');
  });

  it('splits multi-line data on \\n, \\r\\n and \\r into data lines', () => {
    expect(encodeSseEvent('{\n"a":\r\n1\r}', '7')).toBe(
      'id: 7\ndata: {\ndata: "a":\ndata: 1\ndata: }\n\n',
    );
  });
});

describe('createSseParser', () => {
  it('reads ids, event types and joins multi-line data with \\n', () => {
    const { events } = parseAll(['id: 1\nevent: note\ndata: a\ndata: b\n\n']);
    expect(events).toEqual([{ id: '1', event: 'note', data: 'a\nb' }]);
  });

  it('ignores comments (keep-alives) and fields it does not know', () => {
    const { events } = parseAll([': keep-alive\n\nfoo: bar\ndata: x\n\n']);
    expect(events).toEqual([{ id: undefined, event: 'message', data: 'x' }]);
  });

  it('accepts \\r\\n and lone \\r line ends, also split across chunks', () => {
    const { events } = parseAll(['id: 1\r\ndata: a\r', '\ndata: b\r\r', 'data: c\r\n', '\r\n']);
    expect(events.map((e) => e.data)).toEqual(['a\nb', 'c']);
    expect(events.map((e) => e.id)).toEqual(['1', '1']);
  });

  it('assembles an event split at every possible chunk boundary', () => {
    const text = 'id: 42\ndata: {"jsonrpc":"2.0","method":"x"}\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      const { events } = parseAll([text.slice(0, cut), text.slice(cut)]);
      expect(events).toEqual([
        { id: '42', event: 'message', data: '{"jsonrpc":"2.0","method":"x"}' },
      ]);
    }
  });

  it('drops one space after the colon only, skips data-less events, reports retry', () => {
    const { events, retries } = parseAll(['data:  two\n\nid: 5\n\nretry: 1500\ndata:x\n\n']);
    expect(events).toEqual([
      { id: undefined, event: 'message', data: ' two' },
      { id: '5', event: 'message', data: 'x' },
    ]);
    expect(retries).toEqual([1500]);
  });

  it('parses a 5 MB event pushed in 64 KiB chunks, in linear work', () => {
    const payload = `{"jsonrpc":"2.0","method":"big","params":["${'x'.repeat(5 * 1024 * 1024)}"]}`;
    const text = encodeSseEvent(payload, 'big_1');
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 65_536) chunks.push(text.slice(i, i + 65_536));
    const { events } = parseAll(chunks);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(payload.length);
    expect(events[0]!.data).toBe(payload);
  });

  it('reads any mix of line ends cut anywhere as the whole text split on them', () => {
    const field = fc.constantFrom(
      'data: a',
      'data:{"x":1}',
      'id: 7',
      'event: e',
      ': note',
      '',
      'data',
    );
    const end = fc.constantFrom('\n', '\r', '\r\n');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(field, end), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          const text = lines.map(([f, e]) => f + e).join('');
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => text.slice(from, at[i] ?? text.length));
          // The whole text at once, each line pushed with a plain `\n` end.
          const whole = parseAll(
            text
              .split(/\r\n|\r|\n/)
              .slice(0, -1)
              .map((l) => `${l}\n`),
          );
          expect(parseAll(chunks)).toEqual(whole);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('counts in buffered the incomplete line and the data lines of the event not dispatched yet', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((event) => void events.push(event));
    parser.push('data: abc\ndata: de');
    expect(parser.buffered).toBe(3 + 'data: de'.length);
    parser.push('\nid: 7\n');
    expect(parser.buffered).toBe(5);
    parser.push('\n');
    expect(parser.buffered).toBe(0);
    expect(events).toEqual([{ id: '7', event: 'message', data: 'abc\nde' }]);
  });
});
