// Every client × server combination of the matrix under each fault of createFaultyTransport,
// injected on the client's own connection, both ways: every call settles with its right result
// or a clear error within the client's timeout, no call is left pending, and the server still
// serves a fresh connection afterwards. The seed is in each test's name; set FAULT_SEED to
// replay another run.
import { JsonRpcError, LocalError } from '@jsonrpc-kit/core';
import {
  createFaultyTransport,
  FAULT_NAMES,
  type FaultName,
  type FaultyTransport,
} from '@jsonrpc-kit/core/testing';
import { describe, it } from 'vitest';
import { transports } from './matrix-transports.js';

/** The client's per-call timeout: what bounds every call that a fault made unanswerable. */
const CALL_TIMEOUT = 800;
/** Beyond the timeout, how long a settled call may take before the test calls it a hang. */
const GRACE = 3000;
const CALLS = 12;
const RATE = 0.3;
const BASE_SEED = Number(process.env.FAULT_SEED ?? 20_261_123);

function seedOf(transport: string, fault: FaultName): number {
  let h = BASE_SEED >>> 0;
  for (const c of `${transport}/${fault}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/** Rejects when `promise` has not settled within `ms`: a hang. */
function withinDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

describe.each(transports)('fault matrix: $name', (transport) => {
  // Child processes start slowly on a busy machine: one at a time.
  const test = transport.name.startsWith('stdio') ? it : it.concurrent;
  test.for(FAULT_NAMES.map((fault) => [fault, seedOf(transport.name, fault)] as const))(
    '%s (seed %d): every call settles, none hangs, the server keeps serving',
    async ([fault, seed], { expect }) => {
      let faulty: FaultyTransport | undefined;
      const reported: Error[] = [];
      const setup = await transport.setup(
        { callTimeout: CALL_TIMEOUT, onError: (error) => reported.push(error) },
        (inner) => {
          faulty = createFaultyTransport(inner, {
            seed,
            faults: { [fault]: RATE },
            stallMs: 300,
            enabled: false,
          });
          return faulty;
        },
      );
      try {
        const { client } = setup;
        // The connection is up and answering before the faults begin.
        expect(await client.request('sum', [1, 1], { timeout: 10_000 })).toBe(2);
        faulty!.enabled = true;
        const outcomes = await withinDeadline(
          Promise.allSettled(
            Array.from({ length: CALLS }, (_, i) => client.request<number>('sum', [i, i])),
          ),
          CALL_TIMEOUT + GRACE,
          `${transport.name}, ${fault}, seed ${seed}`,
        );
        for (const [i, outcome] of outcomes.entries()) {
          if (outcome.status === 'fulfilled') {
            expect(outcome.value).toBe(2 * i);
            continue;
          }
          // A clear error: one of the kit's two families, saying which call failed.
          const error = outcome.reason as Error;
          expect(error instanceof LocalError || error instanceof JsonRpcError).toBe(true);
          expect(error.message).not.toBe('');
          expect(error).toMatchObject({ method: 'sum' });
        }
        expect(client.pending).toBe(0);
        expect(faulty?.injected[fault]).toBeGreaterThan(0);
        // Whatever the client was told of on the side is one of the kit's errors too.
        for (const error of reported) {
          expect(error instanceof LocalError || error instanceof JsonRpcError).toBe(true);
        }
        // The server serves a fresh connection.
        const raw = await setup.raw();
        const reply = await raw.exchange(
          '{"jsonrpc":"2.0","method":"sum","params":[2,3],"id":"fresh"}',
        );
        expect(JSON.parse(reply!)).toEqual({ jsonrpc: '2.0', id: 'fresh', result: 5 });
      } finally {
        await setup.close();
      }
    },
  );
});
