import { jsonrpc1, losslessNumbers, type ParseResult, superjsonCodec } from '@jsonrpc-kit/core';
import { classifyErrorCode } from '@jsonrpc-kit/core/engine';
import { describe, expect, it } from 'vitest';
import {
  checkResponse,
  parseResponse,
  type ResponseChecks,
  STRICT_RESPONSE_CHECKS,
} from './response-checks.js';

function reason(result: ParseResult): string | undefined {
  if (result.kind === 'invalid') return result.error.message;
  return undefined;
}

describe('parseResponse: strict by default', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":1,"result":2}', undefined],
    ['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', undefined],
    ['{"id":1,"result":2}', 'Invalid response: no "jsonrpc": "2.0"'],
    ['{"jsonrpc":"2.0","result":2}', 'Invalid response: no id member'],
    [
      '{"jsonrpc":"2.0","id":1,"result":2,"error":null}',
      'Invalid response: not exactly one of result and error',
    ],
    [
      '{"jsonrpc":"2.0","id":1,"error":"boom"}',
      'Invalid response: an error member that is not an object',
    ],
    [
      '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}',
      'Invalid response: an error code that is not an integer',
    ],
    [
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":7}}',
      'Invalid response: an error message that is not a string',
    ],
    [
      '{"jsonrpc":"2.0","id":1,"result":2,"params":[]}',
      'Invalid response: request members (method or params) in a response',
    ],
    [
      '{"jsonrpc":"2.0","id":true,"result":2}',
      'Invalid response: an id that is not a string, a number or null',
    ],
  ])('%s → %s', (text, expected) => {
    const parsed = parseResponse(text);
    expect(reason(parsed)).toBe(expected);
    if (expected === undefined) expect(parsed.kind).toBe('response');
  });

  it('takes bytes as well as text, and bytes that are not UTF-8 are a -32700', () => {
    const bytes = new TextEncoder().encode('{"jsonrpc":"2.0","id":"é","result":"ü"}');
    expect(parseResponse(bytes)).toMatchObject({
      kind: 'response',
      message: { id: 'é', result: 'ü' },
    });
    expect(parseResponse(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatchObject({
      kind: 'invalid',
      error: { code: -32700 },
    });
  });
});

describe('parseResponse: each rule relaxed or tightened on its own', () => {
  const one = (text: string, checks: Partial<ResponseChecks>) => parseResponse(text, { checks });

  it('"error": null beside result is a success with one option', () => {
    expect(
      one('{"jsonrpc":"2.0","id":1,"result":2,"error":null}', {
        requireExclusiveResultOrError: false,
      }),
    ).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: 1, result: 2 },
      rawId: undefined,
    });
  });

  it('JSON-RPC 1.0 answers (both members, one null, no jsonrpc) with jsonrpc1', () => {
    expect(
      parseResponse('{"id":1,"result":null,"error":{"code":5,"message":"no"}}', { jsonrpc1 }),
    ).toMatchObject({
      kind: 'response',
      message: { id: 1, error: { code: 5, message: 'no' } },
    });
    expect(parseResponse('{"id":1,"result":3,"error":null}', { jsonrpc1 })).toMatchObject({
      kind: 'response',
      message: { id: 1, result: 3 },
    });
  });

  it('id kinds', () => {
    const base = '{"jsonrpc":"2.0","result":0,"id":';
    expect(reason(one(`${base}null}`, { allowNullId: false }))).toMatch(/allowNullId/);
    expect(reason(one(`${base}"a"}`, { allowStringId: false }))).toMatch(/allowStringId/);
    expect(reason(one(`${base}1}`, { allowNumericId: false }))).toMatch(/allowNumericId/);
    expect(reason(one(`${base}1.5}`, { allowFractionalId: false }))).toMatch(/allowFractionalId/);
    expect(one(`${base}1.5}`, {}).kind).toBe('response');
    expect(one('{"jsonrpc":"2.0","result":0}', { requireIdMember: false })).toMatchObject({
      kind: 'response',
      message: { id: null },
    });
  });

  it('error objects, loosened', () => {
    expect(
      one('{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":5}}', {
        requireIntegerErrorCode: false,
        requireStringErrorMessage: false,
      }),
    ).toMatchObject({ kind: 'response', message: { error: { code: -32603, message: '5' } } });
    expect(
      one('{"jsonrpc":"2.0","id":1,"error":"boom"}', { requireErrorObjectWhenPresent: false }),
    ).toMatchObject({ kind: 'response', message: { error: { code: -32603, data: 'boom' } } });
  });

  it('request fields are allowed only when the rule is off', () => {
    expect(
      one('{"jsonrpc":"2.0","id":1,"result":2,"params":[]}', { rejectRequestFields: false }).kind,
    ).toBe('response');
  });

  it('duplicate member names are seen only when the rule is on', () => {
    const text = '{"jsonrpc":"2.0","id":1,"id":2,"result":2}';
    expect(one(text, {}).kind).toBe('response');
    expect(reason(one(text, { rejectDuplicateMembers: true }))).toBe(
      'Invalid response: a repeated member "id"',
    );
    expect(
      reason(
        one('{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"x"}}', {
          rejectDuplicateMembers: true,
        }),
      ),
    ).toMatch(/repeated member "code"/);
  });

  it('error-code policy: any, standard only, or a custom range', () => {
    const answer = (code: number) =>
      `{"jsonrpc":"2.0","id":1,"error":{"code":${code},"message":"x"}}`;
    expect(one(answer(1001), {}).kind).toBe('response');
    expect(reason(one(answer(1001), { errorCodePolicy: 'standard' }))).toMatch(/error-code policy/);
    expect(reason(one(answer(-32002), { errorCodePolicy: 'standard' }))).toMatch(
      /error-code policy/,
    );
    expect(one(answer(-32601), { errorCodePolicy: 'standard' }).kind).toBe('response');
    const range = { errorCodePolicy: { min: 1000, max: 1999 } } as const;
    expect(one(answer(1001), range).kind).toBe('response');
    expect(one(answer(-32002), range).kind).toBe('response');
    expect(reason(one(answer(2000), range))).toMatch(/error-code policy/);
  });

  it('keeps a batch member by member', () => {
    const parsed = parseResponse('[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2}]');
    expect(parsed.kind === 'batch' && parsed.messages.map((m) => m.kind)).toEqual([
      'response',
      'invalid',
    ]);
  });

  it('checkResponse names the first rule broken', () => {
    expect(checkResponse([], STRICT_RESPONSE_CHECKS)).toEqual({
      ok: false,
      reason: 'not an object',
    });
  });
});

describe('parseResponse with a codec', () => {
  it('the lossless codec keeps every digit of a result and of an id', () => {
    expect(
      parseResponse(
        '{"jsonrpc":"2.0","id":18446744073709551617,"result":[18446744073709551617,1]}',
        {
          codec: losslessNumbers,
        },
      ),
    ).toMatchObject({
      kind: 'response',
      rawId: '18446744073709551617',
      message: { result: [18446744073709551617n, 1] },
    });
  });

  it('a decoding codec decodes results, never ids or errors', () => {
    const codec = superjsonCodec({
      serialize: (value) => ({ json: value }),
      deserialize: (payload: { json: unknown }) => ({ decoded: payload.json }),
    });
    expect(parseResponse('{"jsonrpc":"2.0","id":1,"result":{"json":5}}', { codec })).toMatchObject({
      message: { id: 1, result: { decoded: 5 } },
    });
  });
});

describe('classifyErrorCode', () => {
  it.each([
    [-32700, 'standard'],
    [-32603, 'standard'],
    [-32768, 'standard'],
    [-32100, 'standard'],
    [-32099, 'server-reserved'],
    [-32000, 'server-reserved'],
    [-32005, 'server-reserved'],
    [-31999, 'custom'],
    [-32769, 'custom'],
    [0, 'custom'],
    [1001, 'custom'],
  ] as const)('%i is %s', (code, range) => {
    expect(classifyErrorCode(code)).toBe(range);
  });

  it('refuses a code that is not an integer', () => {
    expect(() => classifyErrorCode(1.5)).toThrow(TypeError);
  });
});
