// Properties of the client's handling of what comes back: arbitrary texts (not JSON, any JSON,
// response-shaped objects with right and wrong ids, results and errors of every type, requests,
// batches of all of these) fed to a client over the memory transport never make it throw, every
// call settles (with a value, or one of the kit's errors), and the client keeps working.
// fast-check prints the seed of a failure.
import {
  createMemoryTransportPair,
  JsonRpcError,
  type JsonRpcId,
  LocalError,
  type Transport,
} from '@jsonrpc-kit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClient } from './client.js';

const CALLS = 4;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Ids near the ones the client uses (1, 2, …), and others. */
const id = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: CALLS + 2 }) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 3 }), fc.double(), fc.jsonValue()) },
);

const errorObject = fc.oneof(
  { weight: 3, arbitrary: fc.record({ code: fc.integer(), message: fc.string() }) },
  fc.record(
    {
      code: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      message: fc.oneof(fc.string(), fc.jsonValue()),
      data: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

const responseLike = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, fc.jsonValue()),
    id,
    result: fc.jsonValue(),
    error: errorObject,
    method: fc.oneof(
      fc.constantFrom('ping', '$/cancelRequest', 'rpc.x', '__proto__'),
      fc.jsonValue(),
    ),
    params: fc.oneof(fc.array(fc.jsonValue(), { maxLength: 3 }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

/** Mostly well-formed responses: a result, or an error with a mostly valid error object. */
const response = fc
  .tuple(id, fc.boolean(), fc.jsonValue(), errorObject)
  .map(([answerId, ok, result, error]) =>
    ok ? { jsonrpc: '2.0', id: answerId, result } : { jsonrpc: '2.0', id: answerId, error },
  );

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  responseLike.map((v) => JSON.stringify(v)),
  response.map((v) => JSON.stringify(v)),
  fc
    .array(fc.oneof(response, responseLike, fc.jsonValue()), { maxLength: 6 })
    .map((v) => JSON.stringify(v)),
  // Number ids in other spellings of the client's ids.
  fc
    .tuple(fc.integer({ min: 1, max: CALLS }), fc.constantFrom('.0', 'e0', '.000', 'E+0'))
    .map(([n, tail]) => `{"jsonrpc":"2.0","id":${n}${tail},"result":"spelled"}`),
);

/** The ids of the requests in what the client sent. */
function requestIds(sent: readonly string[]): JsonRpcId[] {
  return sent
    .flatMap((t) => {
      const v = JSON.parse(t) as unknown;
      return Array.isArray(v) ? v : [v];
    })
    .filter((m): m is { id: JsonRpcId; method: string } => 'method' in m && 'id' in m)
    .map((m) => m.id);
}

describe('client: properties of response handling', () => {
  it('never throws on arbitrary answers, settles every call, keeps working', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 12 }), fc.boolean(), async (texts, batch) => {
        const [mine, peer] = createMemoryTransportPair();
        const sent: string[] = [];
        await peer.start({ onMessage: (m) => sent.push(m), onClose: () => {} });
        // Whatever the client's handler throws is caught here, not lost in a microtask.
        const thrown: unknown[] = [];
        const guarded: Transport = {
          start: (handler) =>
            mine.start({
              onMessage: (m) => {
                try {
                  handler.onMessage(m);
                } catch (error) {
                  thrown.push(error);
                }
              },
              onClose: (e) => handler.onClose(e),
              ...(handler.onError ? { onError: handler.onError } : {}),
            }),
          send: (m, o) => mine.send(m, o),
          close: (r) => mine.close(r),
        };
        const reported: unknown[] = [];
        const client = createClient(guarded, { batch, onError: (e) => reported.push(e) });
        const settled: boolean[] = [];
        const calls = Array.from({ length: CALLS }, (_, i) =>
          client.request('work', [i]).then(
            (value) => {
              settled[i] = true;
              return { ok: true as const, value };
            },
            (error: unknown) => {
              settled[i] = true;
              return { ok: false as const, error };
            },
          ),
        );
        await tick();
        const ids = requestIds(sent);
        expect(ids).toHaveLength(CALLS);

        for (const t of texts) await peer.send(t);
        await tick();
        // Then the right answers: every call still waiting gets one.
        for (const i of ids)
          await peer.send(JSON.stringify({ jsonrpc: '2.0', id: i, result: 'final' }));
        await tick();

        expect(thrown).toEqual([]);
        expect(settled.filter(Boolean)).toHaveLength(CALLS);
        expect(client.pending).toBe(0);
        for (const outcome of await Promise.all(calls)) {
          if (!outcome.ok) {
            const error = outcome.error;
            expect(error instanceof JsonRpcError || error instanceof LocalError).toBe(true);
          }
        }
        for (const error of reported) expect(error).toBeInstanceOf(LocalError);

        // The client keeps working.
        const before = sent.length;
        const next = client.request('work', ['again']);
        await tick();
        const [nextId] = requestIds(sent.slice(before));
        await peer.send(JSON.stringify({ jsonrpc: '2.0', id: nextId, result: 'ok' }));
        expect(await next).toBe('ok');
        await client.close();
      }),
      { numRuns: 200 },
    );
  });
});
