import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FrameError } from './errors.js';
import { createNewlineDecoder, encodeNewline } from './newline.js';

function collect(maxMessageBytes?: number) {
  const messages: string[] = [];
  const errors: FrameError[] = [];
  const decoder = createNewlineDecoder({
    maxMessageBytes,
    onMessage: (m) => messages.push(m),
    onError: (e) => errors.push(e),
  });
  return { decoder, messages, errors, reasons: () => errors.map((e) => e.reason) };
}

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('encodeNewline', () => {
  it('appends one newline', () => {
    expect(encodeNewline('{"a":"é"}').toString('utf8')).toBe('{"a":"é"}\n');
  });

  it('keeps pretty-printed JSON on one line', () => {
    const text = JSON.stringify({ a: [1, 2], b: 'x\ny' }, null, 2);
    const line = encodeNewline(text).toString('utf8');
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(line).not.toContain('\r');
    expect(JSON.parse(line)).toEqual({ a: [1, 2], b: 'x\ny' });
    expect(encodeNewline('{\r\n"a":1}').toString()).toBe('{  "a":1}\n');
  });
});

describe('createNewlineDecoder', () => {
  it('decodes every line of a chunk in one push', () => {
    const { decoder, messages } = collect();
    decoder.push(bytes('{"a":1}\n[2]\n"x"\n'));
    expect(messages).toEqual(['{"a":1}', '[2]', '"x"']);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('tolerates \\r\\n and skips blank lines', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes('{"a":1}\r\n\r\n\n   \n\t\r\n[2]\r\n'));
    expect(messages).toEqual(['{"a":1}', '[2]']);
    expect(errors).toEqual([]);
  });

  it('holds a line until its newline, byte by byte, multi-byte characters included', () => {
    const { decoder, messages } = collect();
    const all = bytes('{"t":"héllo €😀 中"}\r\n["ü"]\n');
    for (let i = 0; i < all.length; i++) {
      decoder.push(all.subarray(i, i + 1));
      if (i < 25) expect(messages).toEqual([]);
    }
    expect(messages).toEqual(['{"t":"héllo €😀 中"}', '["ü"]']);
  });

  it('delivers lines that are not JSON: the endpoint answers them', () => {
    const { decoder, messages } = collect();
    decoder.push(bytes('not json\n'));
    expect(messages).toEqual(['not json']);
  });

  it('skips a line over the limit to the next newline without buffering it', () => {
    const { decoder, messages, errors, reasons } = collect(10);
    decoder.push(bytes('[1]\n{"method":"m",'));
    decoder.push(bytes('"params":["' + 'x'.repeat(100)));
    for (let i = 0; i < 100; i++) decoder.push(bytes('y'.repeat(1000)));
    expect(decoder.bufferedBytes).toBe(0);
    expect(reasons()).toEqual([]);
    decoder.push(bytes('zzz"],"id":"q"}\n[2]\n'));
    expect(messages).toEqual(['[1]', '[2]']);
    expect(reasons()).toEqual(['message-too-large']);
    expect(errors[0]?.envelope).toMatchObject({ kind: 'request', id: 'q', method: 'm' });
  });

  it('skips a too-long line that arrives whole', () => {
    const { decoder, messages, errors, reasons } = collect(4);
    decoder.push(bytes('[1,2,3]\n[1]\n[12]\r\n'));
    expect(messages).toEqual(['[1]', '[12]']);
    expect(reasons()).toEqual(['message-too-large']);
    expect(errors[0]?.envelope).toMatchObject({ kind: 'unknown', id: null });
  });

  it('accepts a line of exactly the limit, split or not, with or without \\r', () => {
    const { decoder, messages, errors } = collect(4);
    decoder.push(bytes('[12'));
    decoder.push(bytes(']\r'));
    decoder.push(bytes('\n'));
    decoder.push(bytes('[34]\n'));
    expect(messages).toEqual(['[12]', '[34]']);
    expect(errors).toEqual([]);
  });

  it('delivers a last line without newline at end()', () => {
    const { decoder, messages } = collect();
    decoder.push(bytes('[1]\n[2'));
    decoder.push(bytes(']'));
    expect(messages).toEqual(['[1]']);
    decoder.end();
    expect(messages).toEqual(['[1]', '[2]']);
    decoder.end();
    expect(messages).toEqual(['[1]', '[2]']);
  });

  it('reads the lines of one chunk, invalid UTF-8 included, as each line decoded alone', () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 8 }),
      fc.constantFrom([0x0a], [0x0d, 0x0a], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3], [0x20]),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const all = Buffer.concat(pieces.map((p) => Buffer.from(p)));
        const { decoder, messages } = collect();
        decoder.push(all);
        const expected: string[] = [];
        let start = 0;
        for (let nl = all.indexOf(0x0a); nl !== -1; nl = all.indexOf(0x0a, start)) {
          const end = nl > start && all[nl - 1] === 0x0d ? nl - 1 : nl;
          const line = all.toString('utf8', start, end);
          if (/[^ \t\r\n]/.test(line)) expected.push(line); // blank lines are skipped
          start = nl + 1;
        }
        expect(messages).toEqual(expected);
        expect(decoder.bufferedBytes).toBe(all.length - start);
      }),
      { numRuns: 1000 },
    );
  });

  it('lets the caller reuse the chunk it pushed', () => {
    const { decoder, messages } = collect();
    const buf = bytes('[1,2');
    decoder.push(buf);
    buf.fill(0x20);
    decoder.push(bytes(']\n'));
    expect(messages).toEqual(['[1,2]']);
  });

  it('property: any split of any stream gives the same messages back', () => {
    const message = fc.oneof(
      fc.json(),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
    );
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (texts, cuts, crlf) => {
          const lines = texts.map((t) =>
            Buffer.from(t, 'utf8')
              .toString('utf8')
              .replace(/[\r\n]/g, ' '),
          );
          const expected = lines.filter((l) => !/^[ \t]*$/.test(l));
          const all = Buffer.from(lines.map((l) => l + (crlf ? '\r\n' : '\n')).join(''), 'utf8');
          const points = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
          const { decoder, messages, errors } = collect();
          let last = 0;
          for (const p of [...points, all.length]) {
            decoder.push(all.subarray(last, p));
            last = p;
          }
          expect(errors).toEqual([]);
          expect(messages).toEqual(expected);
          expect(decoder.bufferedBytes).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
