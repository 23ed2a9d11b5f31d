/**
 * The conformance methods: the JSON-RPC 2.0 specification's examples plus a few that exercise
 * errors, cancellation and notifications. The same server answers over HTTP, WebSocket and stdio.
 *
 * @module
 */
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  InvalidParamsError,
  JsonRpcError,
  losslessNumbers,
  RequestCancelledError,
} from '@jsonrpc-kit/core';
import {
  defaultStreamProfile,
  kotlinxStreamProfile,
  resumable,
  streams,
} from '@jsonrpc-kit/extensions/streams';
import { createServer, type Server, type ServerOptions } from '@jsonrpc-kit/server';

/** Longest `sleep` the server accepts, in milliseconds. */
export const MAX_SLEEP_MS = 60_000;

/** Largest `n` that `count` accepts. */
export const MAX_COUNT = 1_000_000;

/** The stream protocols the server can speak (`--streams`). */
export type StreamsFlavour = 'default' | 'kotlinx';

/** The stream protocol names `--streams` accepts. */
export const STREAMS_FLAVOURS: readonly StreamsFlavour[] = ['default', 'kotlinx'];

/** What `get_data` answers (from the specification's batch example). */
export const GET_DATA_RESULT: readonly [string, number] = Object.freeze(['hello', 5]) as readonly [
  string,
  number,
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNumber(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidParamsError('Invalid params', [
      { path: [name], message: 'Expected a number' },
    ]);
  }
  return value;
}

/** Reads `[a, b]` or `{ minuend, subtrahend }` (the server maps positions to names). */
function subtract(params: unknown): number {
  if (Array.isArray(params)) {
    return finiteNumber(params[0], '0') - finiteNumber(params[1], '1');
  }
  if (isRecord(params)) {
    return finiteNumber(params.minuend, 'minuend') - finiteNumber(params.subtrahend, 'subtrahend');
  }
  throw new InvalidParamsError('Invalid params', [
    { path: [], message: 'Expected [minuend, subtrahend] or { minuend, subtrahend }' },
  ]);
}

/** An integer of any size: a BigInt (read by the lossless codec) or a safe integer number. */
function integer(value: unknown, name: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new InvalidParamsError('Invalid params', [
    { path: [name], message: 'Expected an integer' },
  ]);
}

/** `[a, b]` → `a + b`, exact for integers of any size (as plain JSON numbers, both ways). */
function bigAdd(params: unknown): bigint {
  if (!Array.isArray(params) || params.length !== 2) {
    throw new InvalidParamsError('Invalid params', [
      { path: [], message: 'Expected [a, b], two integers' },
    ]);
  }
  return integer(params[0], '0') + integer(params[1], '1');
}

function sum(params: unknown): number {
  if (!Array.isArray(params)) {
    throw new InvalidParamsError('Invalid params', [{ path: [], message: 'Expected an array' }]);
  }
  let total = 0;
  for (let i = 0; i < params.length; i++) total += finiteNumber(params[i], String(i));
  return total;
}

function sleep(ms: number, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new RequestCancelledError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RequestCancelledError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(ms);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function sleepParams(params: unknown): number {
  const ms = isRecord(params) ? params.ms : Array.isArray(params) ? params[0] : undefined;
  const value = finiteNumber(ms, 'ms');
  if (value < 0 || value > MAX_SLEEP_MS) {
    throw new InvalidParamsError('Invalid params', [
      { path: ['ms'], message: `Expected 0 to ${MAX_SLEEP_MS}` },
    ]);
  }
  return value;
}

function failError(params: unknown): JsonRpcError {
  if (!isRecord(params)) {
    throw new InvalidParamsError('Invalid params', [
      { path: [], message: 'Expected { code, message, data? }' },
    ]);
  }
  const { code, message, data } = params;
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    throw new InvalidParamsError('Invalid params', [
      { path: ['code'], message: 'Expected an integer' },
    ]);
  }
  if (typeof message !== 'string') {
    throw new InvalidParamsError('Invalid params', [
      { path: ['message'], message: 'Expected a string' },
    ]);
  }
  return new JsonRpcError(code, message, data);
}

function countParams(params: unknown): number {
  const n = Array.isArray(params) ? params[0] : isRecord(params) ? params.n : undefined;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_COUNT) {
    throw new InvalidParamsError('Invalid params', [
      { path: ['n'], message: `Expected an integer from 0 to ${MAX_COUNT}` },
    ]);
  }
  return n;
}

/**
 * Serves streams in the given protocol and registers `count` (`[n]`: the integers 1..n, as a
 * stream; resumable under the default protocol).
 *
 * @param server - the server to register on
 * @param flavour - `default` (`rpc.stream.next` pages) or `kotlinx` (the kotlinx-rpc draft's Flows)
 * @returns a function that removes them again
 * @example
 * ```ts
 * registerStreamMethods(server, 'kotlinx');
 * ```
 */
export function registerStreamMethods(
  server: Server,
  flavour: StreamsFlavour = 'default',
): () => void {
  const profile = flavour === 'kotlinx' ? kotlinxStreamProfile : defaultStreamProfile;
  const disposers = [
    streams(server, { profile }),
    server.method(
      'count',
      resumable((params: unknown, from) => {
        // Checked before the stream opens, so bad params are answered -32602 at once.
        const n = countParams(params);
        return (async function* () {
          for (let i = from + 1; i <= n; i++) yield i;
        })();
      }),
      { paramNames: ['n'] },
    ),
  ];
  return () => {
    for (const dispose of disposers) dispose();
  };
}

/**
 * Registers the conformance methods on a server.
 *
 * | method | params | answer |
 * | --- | --- | --- |
 * | `subtract` | `[a, b]` or `{ minuend, subtrahend }` | `a - b` |
 * | `sum` | numbers by position | their sum |
 * | `echo` | anything | the params unchanged (`null` without params) |
 * | `get_data` | none | `["hello", 5]` |
 * | `sleep` | `{ ms }` or `[ms]` | `ms`, after waiting; cancellable |
 * | `fail` | `{ code, message, data? }` | that error |
 * | `crash` | none | -32603 (a plain `Error` is thrown) |
 * | `notify_hello`, `update` | anything | notifications: no answer |
 *
 * @param server - the server to register on
 * @returns a function that removes them again
 * @example
 * ```ts
 * const server = createServer();
 * registerConformanceMethods(server);
 * ```
 */
export function registerConformanceMethods(server: Server): () => void {
  const disposers = [
    server.method('subtract', subtract, { paramNames: ['minuend', 'subtrahend'] }),
    server.method('sum', sum),
    server.method('echo', (params: unknown) => (params === undefined ? null : params)),
    server.method('get_data', () => GET_DATA_RESULT),
    server.method('big_add', bigAdd),
    server.method('sleep', (params: unknown, ctx) => sleep(sleepParams(params), ctx.signal), {
      paramNames: ['ms'],
    }),
    server.method('fail', (params: unknown) => {
      throw failError(params);
    }),
    server.method('crash', () => {
      throw new Error('crash requested');
    }),
    server.notification('notify_hello', () => {}),
    server.notification('update', () => {}),
  ];
  return () => {
    for (const dispose of disposers) dispose();
  };
}

/**
 * Creates a server with the conformance methods, the stream method `count`, and the kit's default
 * limits, set explicitly so that every endpoint (stdio too) refuses requests over 1 MiB. It reads
 * and writes numbers through the lossless-number codec (so `big_add` keeps every digit) unless
 * `options` names another codec.
 *
 * @param options - server options (defaults: the kit's, and the `losslessNumbers` codec)
 * @param flavour - the stream protocol, @default 'default'
 * @returns the server
 * @example
 * ```ts
 * const server = createConformanceServer();
 * await server.handle('{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":1}');
 * ```
 */
export function createConformanceServer(
  options?: ServerOptions,
  flavour: StreamsFlavour = 'default',
): Server {
  // The limit is set, not left to each transport's default, so stdio answers over 1 MiB as HTTP and
  // WebSocket do.
  const server = createServer({
    maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
    codec: losslessNumbers,
    ...options,
  });
  registerConformanceMethods(server);
  registerStreamMethods(server, flavour);
  return server;
}
