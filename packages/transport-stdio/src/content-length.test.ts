import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContentLengthDecoder, encodeContentLength } from './content-length.js';
import { FrameError, type FrameErrorReasonValue } from './errors.js';

function collect(options: { maxMessageBytes?: number; maxHeaderBytes?: number } = {}) {
  const messages: string[] = [];
  const errors: FrameError[] = [];
  const decoder = createContentLengthDecoder({
    ...options,
    onMessage: (m) => messages.push(m),
    onError: (e) => errors.push(e),
  });
  const reasons = (): FrameErrorReasonValue[] => errors.map((e) => e.reason);
  return { decoder, messages, errors, reasons };
}

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('encodeContentLength', () => {
  it('writes the header and the body as one buffer, N in UTF-8 bytes', () => {
    const out = encodeContentLength('{"a":"é€😀"}');
    expect(Buffer.isBuffer(out)).toBe(true);
    expect(out.toString('latin1', 0, 22)).toBe('Content-Length: 17\r\n\r\n');
    expect(out.length).toBe(22 + 17);
    expect(out.subarray(22).toString('utf8')).toBe('{"a":"é€😀"}');
  });

  it('frames the empty string', () => {
    expect(encodeContentLength('').toString('latin1')).toBe('Content-Length: 0\r\n\r\n');
  });
});

describe('createContentLengthDecoder', () => {
  it('decodes one message', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes('Content-Length: 7\r\n\r\n{"a":1}'));
    expect(messages).toEqual(['{"a":1}']);
    expect(errors).toEqual([]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('decodes several messages in one chunk in one push', () => {
    const { decoder, messages } = collect();
    decoder.push(Buffer.concat(['[1]', '[22]', '{}', ''].map((m) => encodeContentLength(m))));
    expect(messages).toEqual(['[1]', '[22]', '{}', '']);
  });

  it('survives a stream split byte by byte, multi-byte characters included', () => {
    const { decoder, messages, errors } = collect();
    const texts = ['{"x":"héllo wörld €"}', '["😀","中文"]', '{}'];
    const all = Buffer.concat(texts.map((t) => encodeContentLength(t)));
    for (let i = 0; i < all.length; i++) decoder.push(all.subarray(i, i + 1));
    expect(messages).toEqual(texts);
    expect(errors).toEqual([]);
  });

  it('counts the length in bytes, not characters', () => {
    const { decoder, messages } = collect();
    // "é" is 2 bytes: a decoder counting characters would read one byte too far.
    decoder.push(bytes('Content-Length: 6\r\n\r\n"é" 1Content-Length: 2\r\n\r\n[]'));
    expect(messages).toEqual(['"é" 1', '[]']);
  });

  it('tolerates other headers, any header-name case, spaces around the value', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(
      bytes(
        'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:2\r\n\r\n[]' +
          'CONTENT-LENGTH:   3  \r\nX-Other: y\r\n\r\n[1]',
      ),
    );
    expect(messages).toEqual(['[]', '[1]']);
    expect(errors).toEqual([]);
  });

  it('skips whitespace between messages', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes('\r\n \nContent-Length: 2\r\n\r\n[]\r\n\r\nContent-Length: 2\r\n\r\n{}'));
    expect(messages).toEqual(['[]', '{}']);
    expect(errors).toEqual([]);
  });

  it('reports a missing Content-Length, then resynchronises', () => {
    const { decoder, messages, reasons } = collect();
    decoder.push(bytes('Content-Type: x\r\n\r\n{"lost":1}Content-Length: 2\r\n\r\n[]'));
    expect(reasons()).toEqual(['missing-content-length']);
    expect(messages).toEqual(['[]']);
  });

  it('reports a non-numeric or negative Content-Length, then resynchronises', () => {
    for (const value of ['abc', '-1', '1.5', '', '0x10', '9999999999999999']) {
      const { decoder, messages, reasons, errors } = collect();
      decoder.push(bytes(`Content-Length: ${value}\r\n\r\n{"x":1}Content-Length: 2\r\n\r\n[]`));
      expect(reasons(), value).toEqual(['invalid-content-length']);
      expect(errors[0]).toBeInstanceOf(FrameError);
      expect(errors[0]?.code).toBe('TRANSPORT_ERROR');
      expect(messages, value).toEqual(['[]']);
    }
  });

  it('reports conflicting duplicate Content-Length headers', () => {
    const { decoder, messages, reasons } = collect();
    decoder.push(
      bytes('Content-Length: 2\r\nContent-Length: 3\r\n\r\n[1]Content-Length: 2\r\n\r\n[]'),
    );
    expect(reasons()).toEqual(['invalid-content-length']);
    expect(messages).toEqual(['[]']);
  });

  it('reports garbage between messages once, then finds the next Content-Length header', () => {
    const { decoder, messages, reasons } = collect();
    decoder.push(
      bytes(
        'Content-Length: 2\r\n\r\n[]garbage {"jsonrpc":"2.0"} more\r\n\r\nnoise content-length: 3\r\n\r\n[1]',
      ),
    );
    expect(reasons()).toEqual(['invalid-header']);
    expect(messages).toEqual(['[]', '[1]']);
  });

  it('reports garbage that arrives without a header end at once', () => {
    const { decoder, messages, reasons } = collect();
    decoder.push(bytes('{"jsonrpc":"2.0","method":"x"}'));
    expect(reasons()).toEqual(['invalid-header']);
    decoder.push(bytes('more garbage'));
    expect(reasons()).toEqual(['invalid-header']);
    decoder.push(bytes('Content-Length: 2\r\n\r\n[]'));
    expect(messages).toEqual(['[]']);
    decoder.push(bytes('junk'));
    // Could still be the start of a header line.
    expect(reasons()).toEqual(['invalid-header']);
    decoder.push(bytes(' {'));
    expect(reasons()).toEqual(['invalid-header', 'invalid-header']);
  });

  it('resynchronises on a header split across chunks after garbage, byte by byte', () => {
    const { decoder, messages, reasons } = collect();
    const all = bytes('xx yy zz\r\nContent-Length: 2\r\n\r\n[]Content-Length: 4\r\n\r\n"é"');
    for (let i = 0; i < all.length; i++) decoder.push(all.subarray(i, i + 1));
    expect(reasons()).toEqual(['invalid-header']);
    expect(messages).toEqual(['[]', '"é"']);
  });

  it('skips a message over the limit without buffering it, scanning it for its id, then goes on', () => {
    const { decoder, messages, errors, reasons } = collect({ maxMessageBytes: 10 });
    const head = bytes('{"jsonrpc":"2.0","method":"big","params":["');
    const tail = bytes('"],"id":42}');
    decoder.push(bytes('Content-Length: 1000000\r\n\r\n'));
    decoder.push(head);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = head.length + tail.length;
    while (sent + chunk.length <= 1_000_000) {
      decoder.push(chunk);
      sent += chunk.length;
      expect(decoder.bufferedBytes).toBe(0);
    }
    // Reported once the message is over, with what its top level said.
    expect(reasons()).toEqual([]);
    decoder.push(
      Buffer.concat([chunk.subarray(0, 1_000_000 - sent), tail, encodeContentLength('[1]')]),
    );
    expect(messages).toEqual(['[1]']);
    expect(reasons()).toEqual(['message-too-large']);
    expect(errors[0]?.message).toContain('1000000');
    expect(errors[0]?.envelope).toMatchObject({ kind: 'request', id: 42, method: 'big' });
  });

  it('reports a message over the limit cut short by the end of the stream', () => {
    const { decoder, errors } = collect({ maxMessageBytes: 10 });
    decoder.push(bytes('Content-Length: 100\r\n\r\n{"method":"n","params":{"a":"xx'));
    decoder.end();
    expect(errors[0]?.envelope).toMatchObject({ kind: 'notification', method: 'n' });
  });

  it('accepts a message of exactly the limit', () => {
    const { decoder, messages, errors } = collect({ maxMessageBytes: 3 });
    decoder.push(encodeContentLength('[1]'));
    decoder.push(encodeContentLength('[12]'));
    decoder.push(encodeContentLength('[2]'));
    expect(messages).toEqual(['[1]', '[2]']);
    expect(errors.map((e) => e.reason)).toEqual(['message-too-large']);
  });

  it('reports a header block over the header limit', () => {
    const { decoder, messages, reasons } = collect({ maxHeaderBytes: 64 });
    decoder.push(bytes(`X-Long: ${'a'.repeat(200)}`));
    expect(reasons()).toEqual(['header-too-large']);
    expect(decoder.bufferedBytes).toBeLessThan(64);
    decoder.push(bytes(`${'a'.repeat(200)}\r\n\r\nContent-Length: 2\r\n\r\n[]`));
    expect(messages).toEqual(['[]']);
  });

  it('measures a header block without its blank line, however the bytes arrive', () => {
    // Found by the split property (seed 307432875): a 38-byte block under a limit of 40 was
    // refused as too large when read byte by byte, its blank line's first bytes counted in.
    const block = 'Content-Length: 2\r\nContent-Type: app/x\r\n\r\n[]';
    const whole = collect({ maxHeaderBytes: 40 });
    whole.decoder.push(bytes(block));
    expect(whole.messages).toEqual(['[]']);
    const split = collect({ maxHeaderBytes: 40 });
    for (const byte of bytes(block)) split.decoder.push(Buffer.from([byte]));
    expect(split.reasons()).toEqual([]);
    expect(split.messages).toEqual(['[]']);
  });

  it('resynchronises after garbage at the same place however the bytes arrive', () => {
    // Found by the split property (seed -971753720): read byte by byte, the decoder took up a
    // header again right after the bad byte ("!Content-Length: 3" passed as another header) and
    // delivered an empty message that the same bytes in one piece do not hold.
    const stream = bytes(
      '\u0000!Content-Length: 3\r\nContent-Length: 0\r\n\r\nContent-Length: 2\r\n\r\n[]',
    );
    const whole = collect();
    whole.decoder.push(stream);
    const split = collect();
    for (const byte of stream) split.decoder.push(Buffer.from([byte]));
    expect(whole.messages).toEqual(['[]']);
    expect(split.messages).toEqual(whole.messages);
    expect(split.reasons()).toEqual(whole.reasons());
    expect(whole.reasons()).toEqual(['invalid-header']);
  });

  it('keeps memory bounded under endless garbage', () => {
    const { decoder, reasons } = collect();
    const junk = bytes('garbage without any header end '.repeat(100));
    for (let i = 0; i < 1000; i++) {
      decoder.push(junk);
      expect(decoder.bufferedBytes).toBeLessThan(16 * 1024);
    }
    expect(reasons()).toEqual(['invalid-header']);
  });

  it('reports a stream that ends inside a message', () => {
    const { decoder, reasons } = collect();
    decoder.push(bytes('Content-Length: 10\r\n\r\n[1,'));
    decoder.end();
    expect(reasons()).toEqual(['truncated']);
    decoder.push(bytes('Content-Len'));
    decoder.end();
    expect(reasons()).toEqual(['truncated', 'truncated']);
    decoder.push(bytes('\r\n'));
    decoder.end();
    expect(reasons()).toEqual(['truncated', 'truncated']);
  });

  it('lets the caller reuse the chunk it pushed', () => {
    const { decoder, messages } = collect();
    const buf = Buffer.from('Content-Length: 5\r\n\r\n[1,2]');
    decoder.push(buf.subarray(0, 25));
    buf.fill(0x20);
    decoder.push(Buffer.from(']'));
    expect(messages).toEqual(['[1,2]']);
  });

  it('accepts a plain Uint8Array', () => {
    const { decoder, messages } = collect();
    decoder.push(new Uint8Array(encodeContentLength('[1]')));
    expect(messages).toEqual(['[1]']);
  });

  it('property: any split of any stream gives the same messages back', () => {
    const message = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.json(),
      fc.string({ unit: 'grapheme' }),
    );
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (texts, cuts) => {
          // Lone surrogates do not survive UTF-8: compare with what the bytes say.
          const expected = texts.map((t) => Buffer.from(t, 'utf8').toString('utf8'));
          const all = Buffer.concat(texts.map((t) => encodeContentLength(t)));
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

  it('property: garbage between messages costs at most the messages it touches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.json(), { minLength: 1, maxLength: 10 }),
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 10 }),
        (texts, garbage, where, cuts) => {
          const at = where % (texts.length + 1);
          const parts = texts.map((t) => encodeContentLength(t));
          parts.splice(at, 0, Buffer.from(`X${garbage}`, 'latin1'));
          const all = Buffer.concat(parts);
          const { decoder, messages } = collect();
          const points = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
          let last = 0;
          for (const p of [...points, all.length]) {
            decoder.push(all.subarray(last, p));
            last = p;
          }
          // Every message after the garbage but the first comes back.
          const after = texts.slice(at + 1);
          expect(messages.slice(messages.length - after.length)).toEqual(after);
          expect(messages.slice(0, at)).toEqual(texts.slice(0, at));
        },
      ),
      { numRuns: 300 },
    );
  });
});
