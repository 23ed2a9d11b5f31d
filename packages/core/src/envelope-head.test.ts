import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanHead } from './envelope-head.js';
import { scanEnvelope } from './envelope-scanner.js';
import {
  serializeError,
  serializeNotification,
  serializeRequest,
  serializeSuccess,
} from './serialize.js';

describe('scanHead', () => {
  const id = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: fc.constantFrom('a', '"', '\\', ',', '}', 'é', '\n') }),
    fc.constant(null),
  );
  const name = fc.string({ unit: fc.constantFrom('a', '"', '\\', ',', '}', '/', 'é') });
  const params = fc.option(fc.array(fc.jsonValue(), { maxLength: 3 }), { nil: undefined });

  it('reads what core serialized as a scan of the whole text does', () => {
    const rawId = fc.option(fc.constantFrom('9007199254740993', '1.0', '1e2', '-0'), {
      nil: undefined,
    });
    const message = fc.oneof(
      fc
        .tuple(id, rawId, fc.jsonValue())
        .map(([i, raw, result]) =>
          serializeSuccess(i, result, typeof i === 'number' ? raw : undefined),
        ),
      fc
        .tuple(id, fc.jsonValue())
        .map(([i, data]) => serializeError(i, { code: -32000, message: 'no', data })),
      fc
        .tuple(fc.oneof(fc.integer(), fc.string()), name, params)
        .map(([i, m, p]) => serializeRequest(i, m, p)),
      fc.tuple(name, params).map(([m, p]) => serializeNotification(m, p)),
    );
    fc.assert(
      fc.property(message, (text) => {
        expect(scanHead(text)).toEqual(scanEnvelope(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads any id and method token in a core head as a scan of the head alone does', () => {
    // Tokens as core writes them (read directly) and others (white space, braces, nesting, a
    // `}` inside, too long to keep, empty), none with a comma: the head ends right after them.
    const scalar = fc.string({
      unit: fc.constantFrom(
        '1',
        '9',
        '-',
        '+',
        '.',
        'e',
        'E',
        'n',
        'u',
        'l',
        ' ',
        '\t',
        '}',
        '{',
        '[',
        ']',
        '"',
      ),
      maxLength: 8,
    });
    const token = fc.oneof(
      scalar.filter((s) => !s.startsWith('"')),
      fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
      fc.constantFrom(
        '1'.repeat(256),
        '1'.repeat(257),
        `"${'a'.repeat(254)}"`,
        `"${'a'.repeat(255)}"`,
      ),
      fc.constantFrom('9007199254740993', '-0', '1e400', 'null', 'true', '"a\\u0001"', '"\u0001"'),
    );
    const valid = (t: string): boolean =>
      !t.includes(',') && (!t.startsWith('"') || t.endsWith('"'));
    let read = 0;
    fc.assert(
      fc.property(
        token,
        token,
        fc.constantFrom('response', 'request', 'notification'),
        (id, m, kind) => {
          fc.pre(valid(id) && valid(m));
          const head =
            kind === 'notification'
              ? `{"jsonrpc":"2.0","method":${m}`
              : kind === 'request'
                ? `{"jsonrpc":"2.0","id":${id},"method":${m}`
                : `{"jsonrpc":"2.0","id":${id}`;
          const text = `${head}${kind === 'response' ? ',"result":1}' : ',"params":[]}'}`;
          const envelope = scanHead(text);
          if (envelope === undefined) return;
          read++;
          expect(envelope).toEqual(scanEnvelope(`${head}}`));
        },
      ),
      { numRuns: 5000 },
    );
    expect(read).toBeGreaterThan(2500);
  });

  it('reads a large message by its head, and leaves any other head to a scan', () => {
    const big = `{"jsonrpc":"2.0","id":"r,1","result":{"content":[{"text":"${'x'.repeat(1 << 20)}"}]}}`;
    expect(scanHead(big)).toEqual({
      kind: 'response',
      id: 'r,1',
      rawId: undefined,
      method: undefined,
    });
    expect(scanHead('{"jsonrpc":"2.0","method":"a\\"b","params":[]}')?.method).toBe('a"b');
    expect(scanHead('{"jsonrpc":"2.0","id":1.0,"result":1}')).toMatchObject({
      id: 1,
      rawId: undefined,
    });
    for (const other of [
      '{"id":7,"jsonrpc":"2.0","result":1}',
      '{"jsonrpc":"2.0","id":7,"params":[],"method":"m"}',
      '{"jsonrpc":"2.0","id":"open',
      '{"jsonrpc":"2.0","method":"m"x}',
      '[{"jsonrpc":"2.0","id":1,"result":1}]',
      ' {"jsonrpc":"2.0","id":1,"result":1}',
    ]) {
      expect(scanHead(other)).toBeUndefined();
    }
  });
});
