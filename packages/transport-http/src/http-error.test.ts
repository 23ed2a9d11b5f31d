import { describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_ERROR_CODE } from './constants.js';
import { isJsonContentType } from './content-type.js';
import { HttpError } from './http-error.js';

describe('HttpError', () => {
  it('names the status and defaults message and code', () => {
    const e = new HttpError(401);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('HttpError');
    expect(e.message).toBe('Unauthorized');
    expect(e.code).toBe(DEFAULT_HTTP_ERROR_CODE);
    expect(new HttpError(403).message).toBe('Forbidden');
    expect(
      new HttpError(429, 'Slow down', { code: -32002, headers: { 'retry-after': '1' } }),
    ).toMatchObject({
      status: 429,
      code: -32002,
      headers: { 'retry-after': '1' },
    });
  });

  it('is recognised across copies by its brand, and not by name alone', () => {
    const copy = Object.assign(new Error('x'), {
      [Symbol.for('@jsonrpc-kit/transport-http/HttpError')]: true,
    });
    expect(copy instanceof HttpError).toBe(true);
    const impostor = Object.assign(new Error('x'), { name: 'HttpError', status: 401 });
    expect(impostor instanceof HttpError).toBe(false);
  });

  it.each([200, 399, 600, 401.5, Number.NaN])('refuses status %s', (status) => {
    expect(() => new HttpError(status)).toThrow(RangeError);
  });
});

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    [' application/json ', true],
    ['APPLICATION/JSON; charset=UTF8', true],
    ['application/json;foo=bar', true],
    ['application/json-rpc; charset=utf-8', true],
    ['application/jsonrequest', true],
    ['application/json; charset=iso-8859-1', false],
    ['application/json-seq', false],
    ['text/json', false],
    ['application/vnd.api+json', false],
    ['', false],
  ])('%j → %s', (value, expected) => {
    expect(isJsonContentType(value)).toBe(expected);
  });
});
