// headIdText: a request and the answer core's server writes for it get the same key whichever
// side reads its message from the head and whichever scans it, for ids of every form (integers
// as core writes them and in other forms, fractions, numbers beyond a double, strings with
// escapes, control characters and surrogates). fast-check prints the seed of a failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headIdText } from './envelope-head.js';
import { scanEnvelope } from './envelope-scanner.js';
import { parse } from './parse.js';
import { serializeError, serializeSuccess, stringifyId } from './serialize.js';

/** The key as the scan reads it: what a router falls back to. */
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

describe('headIdText', () => {
  it('gives a request and its answer the same key, read from the head or scanned', () => {
    fc.assert(
      fc.property(idText, fc.boolean(), (id, failed) => {
        const request = `{"jsonrpc":"2.0","id":${id},"method":"m","params":[1]}`;
        const parsed = parse(request);
        if (parsed.kind !== 'request') return; // not an id JSON-RPC takes
        const answer = failed
          ? serializeError(parsed.message.id, { code: -32000, message: 'x' }, parsed.rawId)
          : serializeSuccess(parsed.message.id, 1, parsed.rawId);
        const atTake = headIdText(request, 'request') ?? scannedKey(request);
        const atSend = headIdText(answer, 'response') ?? scannedKey(answer);
        expect(atSend).toBe(atTake);
        // Where the head is read, it reads what the scan reads.
        for (const [text, kind] of [
          [request, 'request'],
          [answer, 'response'],
        ] as const) {
          const key = headIdText(text, kind);
          if (key !== undefined) expect(key).toBe(scannedKey(text));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('reads the ids core writes from the head, and leaves the others to the scan', () => {
    expect(headIdText('{"jsonrpc":"2.0","id":7,"method":"add"}', 'request')).toBe('7');
    expect(headIdText('{"jsonrpc":"2.0","id":-12,"result":3}', 'response')).toBe('-12');
    expect(headIdText('{"jsonrpc":"2.0","id":"a-1","error":{}}', 'response')).toBe('"a-1"');
    expect(headIdText('{"jsonrpc":"2.0","id":"😀","method":"m"}', 'request')).toBeUndefined();
    for (const id of ['-0', '007', '1.0', '1e2', '1234567890123456', '"a\\"b"', '""x', 'null']) {
      expect(headIdText(`{"jsonrpc":"2.0","id":${id},"method":"m"}`, 'request')).toBeUndefined();
    }
    // The id must be followed by what the side expects.
    expect(headIdText('{"jsonrpc":"2.0","id":7,"result":1}', 'request')).toBeUndefined();
    expect(headIdText('{"jsonrpc":"2.0","id":7,"method":"m"}', 'response')).toBeUndefined();
    expect(headIdText('{"jsonrpc":"2.0","method":"m"}', 'request')).toBeUndefined();
    expect(headIdText('{"jsonrpc":"2.0","id":"open', 'request')).toBeUndefined();
    expect(headIdText('{"jsonrpc":"2.0","id":', 'request')).toBeUndefined();
  });
});
