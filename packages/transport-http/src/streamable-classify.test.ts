import { serializeError, serializeRequest, serializeSuccess } from '@jsonrpc-kit/core';
import { scanEnvelope } from '@jsonrpc-kit/core/engine';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answeredIds } from './streamable-classify.js';

/** The ids a full scan of the text reads: what routing used before answers were read by head. */
function scannedIds(text: string): string[] | undefined {
  const envelope = scanEnvelope(text);
  return envelope.kind === 'response' ? [envelope.rawId ?? JSON.stringify(envelope.id)] : undefined;
}

describe('answeredIds', () => {
  it('reads an answer core wrote from its head as a full scan reads it', () => {
    const id = fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ unit: fc.constantFrom('a', '"', '\\', ',', '}', 'é', '\n') }),
      fc.constant(null),
    );
    const rawId = fc.option(fc.constantFrom('9007199254740993', '1.0', '1e2', '-0'), {
      nil: undefined,
    });
    fc.assert(
      fc.property(id, rawId, fc.jsonValue(), fc.boolean(), (id, raw, result, failed) => {
        const exact = typeof id === 'number' ? raw : undefined;
        const text = failed
          ? serializeError(id, { code: -32000, message: 'no', data: result }, exact)
          : serializeSuccess(id, result, exact);
        expect(answeredIds(text)).toEqual(scannedIds(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a large answer by its head and scans anything else', () => {
    const big = `{"jsonrpc":"2.0","id":"r,1","result":{"content":[{"text":"${'x'.repeat(1 << 20)}"}]}}`;
    expect(answeredIds(big)).toEqual(['"r,1"']);
    expect(answeredIds('{"jsonrpc":"2.0","id":5,"method":"ping"}')).toBeUndefined();
    expect(answeredIds('{"jsonrpc":"2.0","method":"note","params":{}}')).toBeUndefined();
    expect(answeredIds('{"id":7,"jsonrpc":"2.0","result":1}')).toEqual(['7']);
    expect(answeredIds('{"jsonrpc":"2.0","id":1.0,"result":1}')).toEqual(['1']);
    expect(
      answeredIds('[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":"b","error":{}}]'),
    ).toEqual(['1', '"b"']);
  });

  it('reads a request core wrote from its head as no answer', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.string()),
        fc.string(),
        fc.jsonValue(),
        (id, method, params) => {
          const text = serializeRequest(id, method, [params]);
          expect(answeredIds(text)).toBeUndefined();
          expect(scannedIds(text)).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });
});
