import { serializeError, serializeRequest, serializeSuccess } from '@jsonrpc-kit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answersRequest, unansweredRequest } from './expects-answer.js';

describe('unansweredRequest', () => {
  const id = fc.oneof(
    fc.integer(),
    fc.integer({ min: 0, max: 3 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: fc.constantFrom('1', ',', '"', '\\', 'a'), maxLength: 4 }),
  );
  const text = (value: unknown): string => JSON.stringify(value) ?? 'null';

  it('tells an answer to the request from any other answer, as the ids read', () => {
    fc.assert(
      fc.property(id, id, fc.boolean(), fc.jsonValue(), (sentId, answerId, failed, value) => {
        const sent = serializeRequest(sentId, 'm', [value]);
        const body = failed
          ? serializeError(answerId, { code: -1, message: 'no' })
          : serializeSuccess(answerId, value);
        const same = text(sentId) === text(answerId);
        expect(unansweredRequest(sent, body)).toBe(same ? undefined : text(sentId));
        // An answer in a batch counts as well, and one with id null is the client's to match.
        expect(unansweredRequest(sent, `[${body}]`)).toBe(same ? undefined : text(sentId));
        expect(unansweredRequest(sent, serializeError(null, { code: -1, message: 'x' }))).toBe(
          undefined,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('holds a request to its exact id text, and leaves notifications and batches alone', () => {
    const big = '{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}';
    expect(unansweredRequest(big, '{"jsonrpc":"2.0","id":9007199254740993,"result":1}')).toBe(
      undefined,
    );
    expect(unansweredRequest(big, '{"jsonrpc":"2.0","id":9007199254740992,"result":1}')).toBe(
      '9007199254740993',
    );
    expect(
      unansweredRequest(
        '{"jsonrpc":"2.0","id":12,"method":"m"}',
        '{"jsonrpc":"2.0","id":1,"result":2}',
      ),
    ).toBe('12');
    expect(unansweredRequest('{"jsonrpc":"2.0","id":1,"method":"m"}', '{"jsonrpc":')).toBe('1');
    expect(
      unansweredRequest(
        '{"jsonrpc":"2.0","id":1,"method":"m"}',
        '{"id":1,"jsonrpc":"2.0","result":2}',
      ),
    ).toBe(undefined);
    expect(unansweredRequest('{"jsonrpc":"2.0","method":"n"}', 'anything')).toBe(undefined);
    // What a server sends besides answers is no answer.
    expect(answersRequest('{"jsonrpc":"2.0","method":"note","params":{"id":1}}', '1')).toBe(false);
    expect(answersRequest('{"jsonrpc":"2.0","id":1,"method":"ask"}', '1')).toBe(false);
    expect(answersRequest('{"method":"ask","id":1}', '1')).toBe(false);
    expect(answersRequest('{"jsonrpc":"2.0","id":"a,b","result":1}', '"a,b"')).toBe(true);
    // A large answer whose head is not core's is taken as it is, unread.
    const large = `{"id":2,"jsonrpc":"2.0","result":"${'x'.repeat(70_000)}"}`;
    expect(answersRequest(large, '1')).toBe(true);
    expect(answersRequest(large.slice(0, 1000) + '"}', '1')).toBe(false);
    expect(unansweredRequest('[{"jsonrpc":"2.0","id":1,"method":"m"}]', '[]')).toBe(undefined);
  });
});
