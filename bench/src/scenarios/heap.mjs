/**
 * Scenario 6: the heap after many calls, with timeouts and aborts mixed in, returns to its start
 * level. Kit client and server over core's memory transport; needs --expose-gc.
 */
import { createMemoryTransportPair } from '@jsonrpc-kit/core';
import { add, kit, METHOD, PARAMS } from '../common.mjs';

const SLOW = 'slow';

/** A handler that answers after 5 ms, or at once when the call is cancelled. */
function slow(_params, ctx) {
  return new Promise((resolve) => {
    const signal = ctx?.signal;
    const onAbort = () => {
      clearTimeout(timer);
      resolve(0);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(0);
    }, 5);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function settleAndCollect() {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    globalThis.gc();
  }
  return process.memoryUsage().heapUsed;
}

/** Runs `total` calls, 64 in flight: 1 in 32 times out, 1 in 32 is aborted, the rest succeed. */
async function drive(client, total) {
  let issued = 0;
  let failures = 0;
  const lane = async () => {
    while (issued < total) {
      const n = issued++;
      try {
        if (n % 32 === 7) {
          await client.request(SLOW, PARAMS, { timeout: 1 });
        } else if (n % 32 === 23) {
          const controller = new AbortController();
          const pending = client.request(SLOW, PARAMS, { signal: controller.signal });
          setImmediate(() => controller.abort());
          await pending;
        } else {
          await client.request(METHOD, PARAMS);
        }
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, lane));
  return failures;
}

/** Measures the heap before and after `config.calls` calls; value is end / start. */
export async function run(impl, config) {
  if (impl !== 'kit') throw new Error(`unknown impl ${impl}`);
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const [clientSide, serverSide] = createMemoryTransportPair();
  const server = createServer({});
  server.method(METHOD, add);
  server.method(SLOW, slow);
  await server.connect(serverSide);
  const client = createClient(clientSide, {});
  await drive(client, config.warmupCalls);
  const start = await settleAndCollect();
  const began = performance.now();
  const failures = await drive(client, config.calls);
  const seconds = (performance.now() - began) / 1000;
  const end = await settleAndCollect();
  const expectedFailures = Math.round((config.calls * 2) / 32);
  return {
    value: end / start,
    extra: {
      startMB: start / 2 ** 20,
      endMB: end / 2 ** 20,
      calls: config.calls,
      callsPerSecond: config.calls / seconds,
      failures,
      expectedFailures,
    },
  };
}
