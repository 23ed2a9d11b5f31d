// Properties of the frame decoders over arbitrary streams: frames of any text, oversized frames,
// garbage and cut-off headers, in both framings and with 'auto'. Any split of a stream decodes to
// the same messages and errors as the stream in one piece, nothing throws, and what a decoder
// holds back stays under its limits. fast-check prints the seed of a failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeContentLength } from './content-length.js';
import type { FrameDecoder } from './decoder.js';
import type { FrameError } from './errors.js';
import { createFrameDecoder, type Framing } from './framing.js';
import { encodeNewline } from './newline.js';

const MAX_MESSAGE = 48;
const MAX_HEADER = 40;

interface Decoded {
  readonly messages: string[];
  readonly reasons: string[];
  /** The most the decoder held back after any push. */
  readonly held: number;
}

/** Decodes `stream` cut at `cuts`, then ends it. */
function decode(framing: Framing, stream: Buffer, cuts: readonly number[]): Decoded {
  const messages: string[] = [];
  const reasons: string[] = [];
  const decoder: FrameDecoder = createFrameDecoder(framing, {
    maxMessageBytes: MAX_MESSAGE,
    maxHeaderBytes: MAX_HEADER,
    onMessage: (m) => messages.push(m),
    onError: (e: FrameError) => reasons.push(e.reason),
  });
  let held = 0;
  let last = 0;
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  for (const p of [...points, stream.length]) {
    decoder.push(stream.subarray(last, p));
    held = Math.max(held, decoder.bufferedBytes);
    last = p;
  }
  decoder.end();
  expect(decoder.bufferedBytes).toBe(0);
  return { messages, reasons, held };
}

const text = fc.oneof(
  fc.json({ maxDepth: 2 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Pieces of a stream in one framing: good frames, frames over the limit, garbage, bad headers. */
function piece(framing: 'content-length' | 'newline') {
  const encode = framing === 'newline' ? encodeNewline : encodeContentLength;
  return fc.oneof(
    { weight: 6, arbitrary: text.map((t) => encode(t)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b)) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: MAX_MESSAGE + 1, max: 3 * MAX_MESSAGE })
        .map((n) => encode('x'.repeat(n))),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'Content-Length: 3\r\n',
          'Content-Length: nope\r\n\r\n',
          'content-length:2\r\nX-Other: 1\r\n\r\n[]',
          'Content-Type: x\r\n\r\n',
          '\r\n\r\n',
          `Content-Length: ${'9'.repeat(20)}\r\n\r\n`,
          '\n\n  \n',
        )
        .map((s) => Buffer.from(s, 'latin1')),
    },
  );
}

const stream = (framing: 'content-length' | 'newline') =>
  fc.array(piece(framing), { maxLength: 12 }).map((pieces) => Buffer.concat(pieces));

const cuts = fc.array(fc.nat(), { maxLength: 40 });

describe('frame decoders: properties', () => {
  for (const framing of ['content-length', 'newline'] as const) {
    it(`${framing}: any split of any stream decodes as the whole stream does`, () => {
      fc.assert(
        fc.property(stream(framing), cuts, (bytes, at) => {
          const whole = decode(framing, bytes, []);
          const split = decode(framing, bytes, at);
          expect(split.messages).toEqual(whole.messages);
          expect(split.reasons).toEqual(whole.reasons);
        }),
        { numRuns: 300 },
      );
    });

    it(`${framing}: byte by byte decodes as the whole stream does`, () => {
      fc.assert(
        fc.property(stream(framing), (bytes) => {
          const whole = decode(framing, bytes, []);
          const single = decode(
            framing,
            bytes,
            Array.from({ length: bytes.length }, (_, i) => i),
          );
          expect(single.messages).toEqual(whole.messages);
          expect(single.reasons).toEqual(whole.reasons);
        }),
        { numRuns: 150 },
      );
    });

    it(`${framing}: 'auto' decodes a stream that starts with a frame as ${framing} does`, () => {
      const first = framing === 'newline' ? '{"jsonrpc":"2.0","method":"a"}' : '[1]';
      fc.assert(
        fc.property(stream(framing), cuts, (rest, at) => {
          const bytes = Buffer.concat([
            framing === 'newline' ? encodeNewline(first) : encodeContentLength(first),
            rest,
          ]);
          const auto = decode('auto', bytes, at);
          const fixed = decode(framing, bytes, []);
          expect(auto.messages).toEqual(fixed.messages);
          expect(auto.reasons).toEqual(fixed.reasons);
        }),
        { numRuns: 200 },
      );
    });

    it(`${framing}: arbitrary bytes never throw, and what is held back stays bounded`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 400 }), cuts, (raw, at) => {
          const { held, messages } = decode(framing, Buffer.from(raw), at);
          expect(held).toBeLessThanOrEqual(MAX_MESSAGE + MAX_HEADER + 1);
          for (const m of messages)
            expect(Buffer.byteLength(m, 'utf8')).toBeLessThanOrEqual(3 * MAX_MESSAGE);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('content-length: frames of a chunk decoded together', () => {
  it('gives back every message as written, ASCII or not, however the stream is cut', () => {
    const message = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', '{', '"', '\\', '\n', ' ', '0'), maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.json({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 30 }), cuts, (messages, at) => {
        const bytes = Buffer.concat(messages.map(encodeContentLength));
        const decoded: string[] = [];
        const decoder = createFrameDecoder('content-length', {
          onMessage: (m) => decoded.push(m),
          onError: (e) => {
            throw e;
          },
        });
        const points = [...new Set(at.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        let last = 0;
        for (const p of [...points, bytes.length]) {
          decoder.push(bytes.subarray(last, p));
          last = p;
        }
        decoder.end();
        expect(decoded).toEqual(messages);
      }),
      { numRuns: 500 },
    );
  });
});
