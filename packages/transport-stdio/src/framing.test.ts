import { describe, expect, it } from 'vitest';
import { encodeContentLength } from './content-length.js';
import { createFrameDecoder, encodeBatch, type ResolvedFraming } from './framing.js';

function collect(framing: 'auto' | ResolvedFraming) {
  const messages: string[] = [];
  const chosen: ResolvedFraming[] = [];
  const decoder = createFrameDecoder(framing, {
    onMessage: (m) => messages.push(m),
    onFraming: (f) => chosen.push(f),
  });
  return { decoder, messages, chosen };
}

describe('createFrameDecoder', () => {
  it('reports a fixed framing at once', () => {
    expect(collect('newline').chosen).toEqual(['newline']);
    expect(collect('content-length').chosen).toEqual(['content-length']);
  });

  it("'auto' picks newline framing on { or [ after whitespace", () => {
    for (const line of ['{"a":1}', '[1]', '\r\n  \t{"b":2}']) {
      const { decoder, messages, chosen } = collect('auto');
      decoder.push(Buffer.from('\n '));
      expect(chosen).toEqual([]);
      decoder.push(Buffer.from(`${line}\n`));
      expect(chosen).toEqual(['newline']);
      expect(messages).toEqual([line.trim()]);
    }
  });

  it("'auto' picks Content-Length on a header, split anywhere", () => {
    const { decoder, messages, chosen } = collect('auto');
    const all = Buffer.concat([
      Buffer.from('\r\n'),
      encodeContentLength('{"a":"é"}'),
      encodeContentLength('[]'),
    ]);
    for (let i = 0; i < all.length; i++) decoder.push(all.subarray(i, i + 1));
    expect(chosen).toEqual(['content-length']);
    expect(messages).toEqual(['{"a":"é"}', '[]']);
  });

  it("'auto' treats any header name as Content-Length framing", () => {
    const { decoder, messages, chosen } = collect('auto');
    decoder.push(Buffer.from('Content-Type: application/json\r\nContent-Length: 2\r\n\r\n[]'));
    expect(chosen).toEqual(['content-length']);
    expect(messages).toEqual(['[]']);
  });
});

describe('encodeBatch', () => {
  it('frames many messages into one text in order', () => {
    expect(encodeBatch('newline', ['[1]', '{"a":\n2}'])).toBe('[1]\n{"a": 2}\n');
    expect(encodeBatch('content-length', ['[1]', '"é"'])).toBe(
      'Content-Length: 3\r\n\r\n[1]Content-Length: 4\r\n\r\n"é"',
    );
  });
});
