import { serializeError, serializeRequest, serializeSuccess } from '@jsonrpc-kit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { takeAnswered, unansweredRequests } from './expects-answer.js';

/** The ids `body` leaves unanswered of those `sent` owes, joined; `undefined` for none. */
function unansweredRequest(sent: string, body: string): string | undefined {
  const owed = unansweredRequests(sent, body);
  return owed === undefined ? undefined : [...owed].join(', ');
}

/** Whether `body` answers the request with id text `id`. */
function answersRequest(body: string, id: string): boolean {
  const owed = new Set([id]);
  takeAnswered(owed, body);
  return owed.size === 0;
}

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

  it('holds a request to its exact id text, and leaves notifications alone', () => {
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
    // An id in another form than core's is read as the server reads it: 1.0 is answered as 1.
    for (const [sent, answer] of [
      ['1.0', '1'],
      ['1e2', '100'],
      ['-0', '0'],
      ['"\\u0061"', '"a"'],
    ]) {
      expect(
        unansweredRequest(
          `{"jsonrpc":"2.0","id":${sent},"method":"m"}`,
          `{"jsonrpc":"2.0","id":${answer},"result":2}`,
        ),
      ).toBe(undefined);
    }
    // What a server sends besides answers is no answer.
    expect(answersRequest('{"jsonrpc":"2.0","method":"note","params":{"id":1}}', '1')).toBe(false);
    expect(answersRequest('{"jsonrpc":"2.0","id":1,"method":"ask"}', '1')).toBe(false);
    expect(answersRequest('{"method":"ask","id":1}', '1')).toBe(false);
    expect(answersRequest('{"jsonrpc":"2.0","id":"a,b","result":1}', '"a,b"')).toBe(true);
    // A large answer whose head is not core's is taken as it is, unread.
    const large = `{"id":2,"jsonrpc":"2.0","result":"${'x'.repeat(70_000)}"}`;
    expect(answersRequest(large, '1')).toBe(true);
    expect(answersRequest(large.slice(0, 1000) + '"}', '1')).toBe(false);
  });

  it('holds each request of a batch to an answer, whatever the order of the answers', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(id, { minLength: 1, maxLength: 6, selector: (value) => text(value) }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        (ids, answeredFlags, order, notification) => {
          const members = ids.map((value) => serializeRequest(value, 'm', [value]));
          if (notification) members.push('{"jsonrpc":"2.0","method":"n"}');
          const sent = `[${members.join(',')}]`;
          const answered = ids.filter((_, i) => answeredFlags[i]);
          const answers = answered
            .map((value, i) => ({ value, key: order[i]! }))
            .sort((a, b) => a.key - b.key)
            .map(({ value }) => serializeSuccess(value, 1));
          const left = ids.filter((_, i) => !answeredFlags[i]).map(text);
          const expected = left.length === 0 ? undefined : left.join(', ');
          expect(unansweredRequest(sent, `[${answers.join(',')}]`)).toBe(expected);
          // One answer with id null is the client's to match: nothing is failed.
          const withNull = [...answers, serializeError(null, { code: -32600, message: 'x' })];
          expect(unansweredRequest(sent, `[${withNull.join(',')}]`)).toBe(undefined);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('checks batches on both sides: notifications owe nothing, a batch-wide error answers all', () => {
    const two = '[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":"b","method":"m"}]';
    expect(unansweredRequest(two, '[]')).toBe('1, "b"');
    expect(unansweredRequest(two, '[{"jsonrpc":"2.0","id":"b","result":0}]')).toBe('1');
    // A batch answered by one error with id null (too many members, say).
    const tooMany = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too many"}}';
    expect(unansweredRequest(two, tooMany)).toBe(undefined);
    // Answers written another way are parsed all the same.
    expect(unansweredRequest(two, '[{"result":0,"id":1,"jsonrpc":"2.0"}]')).toBe('"b"');
    // Not JSON: nothing is answered.
    expect(unansweredRequest(two, '[{"jsonrpc":"2.0","id":1,')).toBe('1, "b"');
    // A batch of notifications owes nothing; nor does a sent batch over 64 KiB (not checked).
    expect(unansweredRequest('[{"jsonrpc":"2.0","method":"n"}]', '')).toBe(undefined);
    const large = `[{"jsonrpc":"2.0","id":1,"method":"m","params":["${'x'.repeat(70_000)}"]}]`;
    expect(unansweredRequest(large, '[]')).toBe(undefined);
  });
});
