// The one server the transport matrix runs against, in plain JavaScript so that the stdio child
// process can run it on the packages' built output. Types: server.d.mts.
import { defineContract, JsonRpcError, method, notification } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import * as v from 'valibot';

/** A typed contract, served under the `calc.` prefix. */
export const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({
    params: v.object({ dividend: v.number(), divisor: v.pipe(v.number(), v.notValue(0)) }),
    result: v.number(),
  }),
  log: notification({ params: v.object({ message: v.string() }) }),
});

/** The application error code `fail` answers with. */
export const APP_ERROR_CODE = 4001;

/** The secret a crashing handler throws; it must never reach the wire. */
export const CRASH_SECRET = 'secret at /srv/app/handlers/crash.js:12';

/**
 * Builds the matrix server. What it records (notifications received, handler signals that
 * fired) is read back over the wire with `recorded`, so every transport, the child process
 * included, is checked the same way.
 */
export function createMatrixServer() {
  const notes = [];
  const aborted = [];
  const server = createServer();

  server.method('subtract', ({ minuend, subtrahend }) => minuend - subtrahend, {
    paramNames: ['minuend', 'subtrahend'],
  });
  server.method('sum', (numbers) => numbers.reduce((total, n) => total + n, 0));
  server.method('echo', (params) => params);
  server.method('get_data', () => ['hello', 5]);
  // Reports progress 1…to when the caller sent a progress token (duplex transports only).
  server.method('count', async ({ to }, ctx) => {
    const report = ctx.progress;
    for (let i = 1; i <= to; i++) await report?.({ done: i, of: to });
    return { reported: report !== undefined };
  });
  server.method(
    'sleep',
    ({ ms }, ctx) => {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve('slept'), ms);
        ctx.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            aborted.push(ctx.id);
            reject(ctx.signal.reason);
          },
          { once: true },
        );
      });
    },
    { paramNames: ['ms'] },
  );
  server.method('fail', (params) => {
    throw new JsonRpcError(APP_ERROR_CODE, 'Application failure', { reason: 'asked to', params });
  });
  server.method('crash', () => {
    throw new Error(CRASH_SECRET);
  });
  server.notification('record', (params) => {
    notes.push(params);
  });
  server.method('recorded', () => ({ notes, aborted }));
  server.method(
    'callback',
    async ({ n }, ctx) => {
      if (ctx.peer === undefined) throw new JsonRpcError(-32000, 'No peer on this transport');
      await ctx.peer.notify('pushed', { n });
      const doubled = await ctx.peer.request('double', [n], { timeout: 2000 });
      return { doubled };
    },
    { paramNames: ['n'] },
  );
  server.implement(
    calculator,
    {
      add: ([a, b]) => a + b,
      divide: ({ dividend, divisor }) => dividend / divisor,
      log: (params) => {
        notes.push(params);
      },
    },
    { prefix: 'calc.' },
  );
  return server;
}
