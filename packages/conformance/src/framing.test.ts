import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStrictReader, type Framing, frame } from './framing.js';

function reader(framing: Framing) {
  const messages: string[] = [];
  const garbage: string[] = [];
  const read = createStrictReader(
    framing,
    (text) => messages.push(text),
    (description) => garbage.push(description),
  );
  return { read, messages, garbage };
}

describe('createStrictReader', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each(['newline', 'content-length'] as const)(
    'reads a long message that comes in many chunks in linear work (%s)',
    (framing) => {
      // Counted, not timed: the bytes copied by Buffer.concat, against the bytes read.
      const concat = vi.spyOn(Buffer, 'concat');
      const { read, messages } = reader(framing);
      const text = JSON.stringify('a'.repeat(2_000 * 1024));
      const bytes = frame(text, framing);
      for (let at = 0; at < bytes.length; at += 1024) read(bytes.subarray(at, at + 1024));
      expect(messages).toEqual([text]);
      const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
      expect(copied).toBeLessThanOrEqual(2 * bytes.length);
    },
  );

  it.each(['newline', 'content-length'] as const)(
    'reads the same messages however the bytes are cut (%s)',
    (framing) => {
      const texts = ['{"a":1}', '{"b":"é ✓"}', '[1,2,3]'];
      const bytes = Buffer.concat(texts.map((t) => frame(t, framing)));
      for (let cut = 0; cut <= bytes.length; cut++) {
        for (const step of [1, 3, 7]) {
          const { read, messages, garbage } = reader(framing);
          read(bytes.subarray(0, cut));
          for (let at = cut; at < bytes.length; at += step) read(bytes.subarray(at, at + step));
          expect(messages).toEqual(texts);
          expect(garbage).toEqual([]);
        }
      }
    },
  );

  it('reports garbage and reads on (content-length)', () => {
    const { read, messages, garbage } = reader('content-length');
    read(Buffer.from('Content-Length: 2\r\nBad Header\r\n\r\n'));
    read(Buffer.from('\x00\x01'));
    read(frame('{"ok":true}', 'content-length'));
    expect(garbage).toEqual([
      'bad header: "Content-Length: 2\\\\r\\\\nBad Header"',
      'not a header: "\\u0000\\u0001"',
    ]);
    expect(messages).toEqual(['{"ok":true}']);
  });
});
