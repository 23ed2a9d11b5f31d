// The head read of the queue transport: a request and the answer core's server writes for it get
// the same key whichever side reads its message from the head and whichever scans it, for ids of
// every form (integers as core writes them and in other forms, fractions, numbers beyond a double,
// strings with escapes, control characters and surrogates). fast-check prints the seed of a
// failure.
import {
  parse,
  scanEnvelope,
  serializeError,
  serializeSuccess,
  stringifyId,
} from '@jsonrpc-kit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANSWER_NEXT, headIdEnd, headKey, REQUEST_NEXT } from './head-key.js';

/** The key as the scan reads it: what the transport falls back to. */
function scannedKey(text: string): string {
  const envelope = scanEnvelope(text);
  return stringifyId(envelope.id, envelope.rawId);
}

/** Id texts of every form a peer may write. */
const idText = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom(
    '0',
    '-0',
    '-1',
    '1.0',
    '1e2',
    '1E+2',
    '-0.0',
    '9007199254740993',
    '123456789012345',
    '1234567890123456',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string({ unit: 'binary' }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'grapheme' }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"a\\u0062"', '"\\/"', '"\u2028"', '"\ud800"', '"\\ud800"', '"😀"', '"\\"x"'),
);

describe('the head read of a queued message', () => {
  it('gives a request and its answer the same key, read from the head or scanned', () => {
    fc.assert(
      fc.property(idText, fc.boolean(), (id, failed) => {
        const request = `{"jsonrpc":"2.0","id":${id},"method":"m","params":[1]}`;
        const parsed = parse(request);
        if (parsed.kind !== 'request') return; // not an id JSON-RPC takes
        const answer = failed
          ? serializeError(parsed.message.id, { code: -32000, message: 'x' }, parsed.rawId)
          : serializeSuccess(parsed.message.id, 1, parsed.rawId);
        const atTake = headKey(request, REQUEST_NEXT) ?? scannedKey(request);
        const atSend = headKey(answer, ANSWER_NEXT) ?? scannedKey(answer);
        expect(atSend).toBe(atTake);
        // Where the head is read, it reads what the scan reads.
        for (const [text, next] of [
          [request, REQUEST_NEXT],
          [answer, ANSWER_NEXT],
        ] as const) {
          const key = headKey(text, next);
          if (key !== undefined) expect(key).toBe(scannedKey(text));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('reads the ids core writes from the head, and leaves the others to the scan', () => {
    expect(headKey('{"jsonrpc":"2.0","id":7,"method":"add"}', REQUEST_NEXT)).toBe('7');
    expect(headKey('{"jsonrpc":"2.0","id":-12,"result":3}', ANSWER_NEXT)).toBe('-12');
    expect(headKey('{"jsonrpc":"2.0","id":"a-1","error":{}}', ANSWER_NEXT)).toBe('"a-1"');
    expect(headKey('{"jsonrpc":"2.0","id":"😀","method":"m"}', REQUEST_NEXT)).toBeUndefined();
    for (const id of ['-0', '007', '1.0', '1e2', '1234567890123456', '"a\\"b"', '""x', 'null']) {
      expect(headIdEnd(`{"jsonrpc":"2.0","id":${id},"method":"m"}`, REQUEST_NEXT)).toBe(-1);
    }
    // The id must be followed by what the side expects.
    expect(headIdEnd('{"jsonrpc":"2.0","id":7,"result":1}', REQUEST_NEXT)).toBe(-1);
    expect(headIdEnd('{"jsonrpc":"2.0","id":7,"method":"m"}', ANSWER_NEXT)).toBe(-1);
    expect(headIdEnd('{"jsonrpc":"2.0","method":"m"}', REQUEST_NEXT)).toBe(-1);
    expect(headIdEnd('{"jsonrpc":"2.0","id":"open', REQUEST_NEXT)).toBe(-1);
    expect(headIdEnd('{"jsonrpc":"2.0","id":', REQUEST_NEXT)).toBe(-1);
  });
});
