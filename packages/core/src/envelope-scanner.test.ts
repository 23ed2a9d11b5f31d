import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanHead } from './envelope-head.js';
import { createEnvelopeScanner, scanEnvelope } from './envelope-scanner.js';
import { parse } from './parse.js';

const big = 'x'.repeat(100_000);

describe('scanEnvelope', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"method":"m","params":["x"]}', 'request', 7, 'm'],
    [
      `{"jsonrpc":"2.0","method":"m","params":{"a":["${big}","}{]["]},"id":"late"}`,
      'request',
      'late',
      'm',
    ],
    ['{ "id" : null , "method" : "m" }', 'request', null, 'm'],
    ['{"id":{"a":1},"method":"m"}', 'request', null, 'm'],
    ['{"id":[1,2],"method":"m"}', 'request', null, 'm'],
    ['{"id":true,"method":"m"}', 'request', null, 'm'],
    [`{"id":"${'a'.repeat(300)}","method":"m"}`, 'request', null, 'm'],
    ['{"id":1,"id":2,"method":"m"}', 'request', 2, 'm'],
    ['{"\\u0069d":3,"method":"m"}', 'request', 3, 'm'],
    ['{"params":{"id":1,"method":"inner"},"method":"outer"}', 'notification', null, 'outer'],
    [
      `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"${big}"}}`,
      'notification',
      null,
      'textDocument/didOpen',
    ],
    ['{"jsonrpc":"2.0","id":"r","result":{"id":9}}', 'response', 'r', undefined],
    ['[{"jsonrpc":"2.0","id":1,"method":"m"}]', 'unknown', null, undefined],
    ['not json', 'unknown', null, undefined],
    ['{"jsonrpc":"2.0"}', 'unknown', null, undefined],
    ['{"id":5,"method":"m","params":["cut sh', 'request', 5, 'm'],
  ])('%#: %s', (text, kind, id, method) => {
    expect(scanEnvelope(text)).toMatchObject({ kind, id, method });
  });

  it('reads an id or method token as JSON.parse does', () => {
    const token = fc.oneof(
      fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
      // Escapes, a raw control character (not JSON), other characters; closed where JSON is.
      fc
        .array(fc.constantFrom('\\"', '\\\\', '\\n', '\\u0041', '\u0001', 'a', 'é', '/'), {
          maxLength: 6,
        })
        .map((parts) => `"${parts.join('')}"`),
      fc.string({ unit: fc.constantFrom('0', '1', '9', '-'), minLength: 1, maxLength: 18 }),
      fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }).map(String),
    );
    const parsed = (text: string): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    };
    fc.assert(
      fc.property(token, (text) => {
        fc.pre(!text.includes(',') && !text.includes('}'));
        const value = parsed(text);
        // As `parse` reads an id: a number beyond a double (`1e400`) is one too, by its text.
        const id = typeof value === 'string' || typeof value === 'number' ? value : null;
        const envelope = scanEnvelope(`{"id":${text},"method":"m"}`);
        expect(envelope.id).toBe(id);
        expect(envelope.rawId).toBe(
          typeof id === 'number' && !Number.isSafeInteger(id) ? text : undefined,
        );
        expect(scanEnvelope(`{"method":${text}}`).method).toBe(
          typeof value === 'string' ? value : undefined,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the exact text of ids a number cannot hold', () => {
    expect(scanEnvelope('{"method":"m","id":9007199254740993}')).toEqual({
      kind: 'request',
      id: 2 ** 53,
      rawId: '9007199254740993',
      method: 'm',
    });
    expect(scanEnvelope('{"method":"m","id":1.5}').rawId).toBe('1.5');
    // Beyond what a double holds: as `parse` reads it, an id by its text.
    for (const text of ['1e400', '-1E999']) {
      expect(scanEnvelope(`{"method":"m","id":${text}}`).rawId).toBe(text);
      expect(scanHead(`{"jsonrpc":"2.0","id":${text},"result":1}`)?.rawId).toBe(text);
      expect(parse(`{"jsonrpc":"2.0","method":"m","id":${text}}`)).toMatchObject({
        kind: 'request',
        rawId: text,
      });
    }
  });

  it('reads bytes split anywhere, multi-byte characters included', () => {
    const bytes = new TextEncoder().encode(`{"params":["${big}"],"method":"é","id":"€😀"}`);
    for (const cut of [1, 7, 100_013, bytes.length - 5, bytes.length - 2]) {
      const scanner = createEnvelopeScanner();
      scanner.push(bytes.subarray(0, cut));
      scanner.push(bytes.subarray(cut));
      expect(scanner.result()).toMatchObject({ kind: 'request', id: '€😀', method: 'é' });
    }
  });

  it('skips string values full of escapes, as text or bytes cut anywhere', () => {
    const tricky = fc.string({
      unit: fc.constantFrom('\\', '"', 'a', '\n', 'é', '😀'),
      maxLength: 40,
    });
    const member = fc.tuple(fc.constantFrom('a', 'result', 'params', 'id', 'method'), tricky);
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 6 }),
        fc.constantFrom('text', 'bytes'),
        fc.array(fc.nat(), { maxLength: 3 }),
        (members, as, cuts) => {
          const text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
          const message = JSON.parse(text) as { id?: string; method?: string };
          const whole = as === 'text' ? text : new TextEncoder().encode(text);
          const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((x, y) => x - y);
          const scanner = createEnvelopeScanner();
          for (const [i, from] of [0, ...at].entries())
            scanner.push(whole.slice(from, at[i] ?? whole.length));
          // Every string here is well under the 256 characters an id or method may have.
          const hasId = message.id !== undefined;
          const hasMethod = message.method !== undefined;
          expect(scanner.result()).toMatchObject({
            kind: hasMethod ? (hasId ? 'request' : 'notification') : hasId ? 'response' : 'unknown',
            id: message.id ?? null,
            method: message.method,
          });
        },
      ),
      { numRuns: 3000 },
    );
  });
});
