import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createServer } from './server.js';

/** Checks one response object's shape: exactly one of result/error, a valid id, an integer code. */
function checkResponse(value: unknown): void {
  expect(typeof value).toBe('object');
  const r = value as Record<string, unknown>;
  expect(r.jsonrpc).toBe('2.0');
  expect(['string', 'number', 'object'].includes(typeof r.id)).toBe(true);
  if (typeof r.id === 'object') expect(r.id).toBe(null);
  expect('result' in r !== 'error' in r).toBe(true);
  if ('error' in r) {
    const e = r.error as Record<string, unknown>;
    expect(Number.isInteger(e.code)).toBe(true);
    expect(typeof e.message).toBe('string');
  }
}

function checkAnswer(answer: string | undefined): void {
  if (answer === undefined) return;
  const value = JSON.parse(answer);
  if (Array.isArray(value)) {
    expect(value.length).toBeGreaterThan(0);
    for (const item of value) checkResponse(item);
  } else checkResponse(value);
}

const methodNames = fc.constantFrom(
  'echo',
  'boom',
  'async',
  'named',
  '__proto__',
  'constructor',
  'toString',
  'rpc.x',
  '',
);
const ids = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.object());
const messages = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
    id: ids,
    method: fc.oneof(methodNames, fc.jsonValue()),
    params: fc.oneof(
      fc.array(fc.jsonValue()),
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.jsonValue(),
    ),
    result: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('fuzz: handle() never fails and always answers well-formed', () => {
  const server = createServer({ maxBatchSize: 20 });
  server.method('echo', (p: unknown) => p);
  server.method('boom', () => {
    throw new Error('x');
  });
  server.method('async', async (p: unknown) => p);
  server.method('named', (p: unknown) => p, { paramNames: ['a', 'b', '__proto__'] });

  const inputs = fc.oneof(
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    messages.map((m) => JSON.stringify(m)),
    fc.array(messages, { maxLength: 25 }).map((m) => JSON.stringify(m)),
    fc.array(fc.oneof(messages, fc.jsonValue()), { maxLength: 5 }).map((m) => JSON.stringify(m)),
  );

  it('answers random input well-formed and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(inputs, async (text) => {
        checkAnswer(await server.handle(text));
      }),
      { numRuns: 600 },
    );
    expect(await server.handle('{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":[1]}',
    );
    expect(({} as Record<string, unknown>).a).toBe(undefined);
  });
});
