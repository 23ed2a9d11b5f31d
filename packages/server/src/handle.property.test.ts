// Properties of `server.handle(text)` over arbitrary input: it never throws, every answer is a
// valid JSON-RPC response or batch, ids come back exactly (number ids by their source text when a
// JavaScript number cannot hold them), and the answer grows at most linearly with the input.
// fast-check prints the seed and path of a failure; replay with `{ seed, path }` in fc.assert.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createServer } from './server.js';

/** Checks one response object's shape: exactly one of result/error, a valid id, an integer code. */
function checkResponse(value: unknown): void {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  const r = value as Record<string, unknown>;
  expect(r.jsonrpc).toBe('2.0');
  expect('id' in r).toBe(true);
  expect(r.id === null || typeof r.id === 'string' || typeof r.id === 'number').toBe(true);
  expect('result' in r !== 'error' in r).toBe(true);
  if ('error' in r) {
    const e = r.error as Record<string, unknown>;
    expect(Number.isInteger(e.code)).toBe(true);
    expect(typeof e.message).toBe('string');
  }
}

/** Checks an answer: none, one valid response, or a non-empty array of them. */
function checkAnswer(answer: string | undefined): unknown[] {
  if (answer === undefined) return [];
  const value = JSON.parse(answer) as unknown;
  const members = Array.isArray(value) ? value : [value];
  if (Array.isArray(value)) expect(value.length).toBeGreaterThan(0);
  for (const member of members) checkResponse(member);
  return members;
}

/** Every answer is at most this many bytes per input byte, plus a constant. */
const ANSWER_PER_INPUT_BYTE = 64;
const ANSWER_CONSTANT = 512;

function checkCost(text: string, answer: string | undefined): void {
  expect(answer?.length ?? 0).toBeLessThanOrEqual(
    ANSWER_PER_INPUT_BYTE * text.length + ANSWER_CONSTANT,
  );
}

function makeServer() {
  let calls = 0;
  const server = createServer({ maxBatchSize: 30 });
  server.method('ok', () => {
    calls++;
    return true;
  });
  server.method('echo', (params: unknown) => {
    calls++;
    return params;
  });
  server.method('boom', () => {
    calls++;
    throw new Error('secret');
  });
  server.notification('note', () => {
    calls++;
  });
  return { server, calls: () => calls };
}

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** The text of a JSON number id: small, beyond 2^53, fractional, with an exponent, negative. */
const numberIdText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom(...'123456789'), digits(0, 40)).map(([a, b]) => a + b),
    ),
    fc.option(digits(1, 30), { nil: undefined }),
    fc.option(
      fc.tuple(fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'), digits(1, 3)).map(([e, d]) => e + d),
      { nil: undefined },
    ),
  )
  .map(
    ([negative, int, fraction, exponent]) =>
      `${negative ? '-' : ''}${int}${fraction === undefined ? '' : `.${fraction}`}${exponent ?? ''}`,
  );

/** What the id must come back as: its own text, or JSON's text of a safe integer. */
function expectedIdText(idText: string): string {
  const value = JSON.parse(idText) as unknown;
  return typeof value === 'number' && Number.isSafeInteger(value) ? JSON.stringify(value) : idText;
}

const idText = fc.oneof(
  { weight: 4, arbitrary: numberIdText },
  {
    weight: 1,
    arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map((s) => JSON.stringify(s)),
  },
  { weight: 1, arbitrary: fc.constant('null') },
);

const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');

/** A params member with nested "id" keys that must not be taken for the message's id. */
const paramsDecoy = fc.constantFrom(
  '"params":{"id":1.5,"x":[{"id":9007199254740993}]}',
  '"params":["id",{"id":"x"},"\\"id\\":7"]',
  '"params":[]',
);
/** Another member that is not the id. */
const otherDecoy = fc.constantFrom('"x":{"id":2.25}', '"i\\u0064x":3', '"idx":[1e400]');

/** A request text built by hand: members in any order, any spacing, decoys around the id. */
const requestText = fc
  .tuple(
    idText,
    fc.constantFrom('ok', 'boom', 'missing'),
    fc.option(paramsDecoy, { nil: undefined }),
    fc.option(otherDecoy, { nil: undefined }),
    space,
    fc.nat(),
  )
  .map(([id, method, params, other, ws, turn]) => {
    const members = [`"jsonrpc":"2.0"`, `"method":"${method}"`, `"id"${ws}:${ws}${id}`];
    if (params !== undefined) members.push(params);
    if (other !== undefined) members.push(other);
    const k = turn % members.length;
    const ordered = members.slice(k).concat(members.slice(0, k));
    return { id, text: `{${ws}${ordered.join(`${ws},${ws}`)}${ws}}` };
  });

/** The id texts of an answer's number and null ids, in order (string ids cannot hold the pattern). */
function numberIdTexts(answer: string): string[] {
  return [...answer.matchAll(/\{"jsonrpc":"2\.0","id":(-?\d[^,]*|null),"/g)].map((m) => m[1]!);
}

describe('server.handle: properties', () => {
  it('never throws on arbitrary text or bytes, answers well-formed, at most linearly', async () => {
    const { server } = makeServer();
    const inputs = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('utf8')),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.array(fc.jsonValue(), { minLength: 1, maxLength: 40 }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(inputs, async (text) => {
        const answer = await server.handle(text);
        checkAnswer(answer);
        checkCost(text, answer);
      }),
      { numRuns: 400 },
    );
  });

  it('echoes every id exactly, single and in batches, whatever the spacing and member order', async () => {
    const { server } = makeServer();
    await fc.assert(
      fc.asyncProperty(
        fc.array(requestText, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (requests, asBatch) => {
          const single = !asBatch || requests.length === 1;
          const text = single ? requests[0]!.text : `[${requests.map((r) => r.text).join(',')}]`;
          const answer = await server.handle(text);
          const members = checkAnswer(answer);
          const sent = single ? [requests[0]!] : requests;
          expect(members).toHaveLength(sent.length);
          // Number and null ids by their text; string ids by their value.
          const expected = sent
            .filter((r) => !r.id.startsWith('"'))
            .map((r) => expectedIdText(r.id));
          expect(numberIdTexts(answer!)).toEqual(expected);
          sent.forEach((r, i) => {
            if (r.id.startsWith('"'))
              expect((members[i] as { id: unknown }).id).toBe(JSON.parse(r.id));
          });
          checkCost(text, answer);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('runs each handler at most once per member, whatever the batch', async () => {
    const { server, calls } = makeServer();
    const member = fc.oneof(
      requestText.map((r) => r.text),
      fc.constant('{"jsonrpc":"2.0","method":"note"}'),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(member, { minLength: 1, maxLength: 40 }), async (members) => {
        const before = calls();
        const answer = await server.handle(`[${members.join(',')}]`);
        checkAnswer(answer);
        expect(calls() - before).toBeLessThanOrEqual(members.length);
      }),
      { numRuns: 200 },
    );
  });
});
