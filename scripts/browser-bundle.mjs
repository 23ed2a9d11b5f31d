// The browser client's size: what an app that calls over HTTP and WebSocket ships (client, HTTP
// transport, WebSocket client transport), bundled and minified by esbuild from the built
// packages, and gzipped. Used by the pack check (against the budget) and by the benchmark.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The most the browser client may weigh, gzipped, in bytes. */
// 17 KiB: 12.0 KB before the second wave's duplex engine. The client now runs on core's session
// (incoming-call table, handler dispatch, cancellation and progress profiles, middleware: about
// 2.2 KB gzip) and carries `client.subscribe()` and the subscription dialects (about 1.6 KB);
// 16.4 KB measured then. 18 KiB: call context (a call's `deadline` and `meta` on the wire, about
// 0.4 KB) and the hooks of codecs, JSON-RPC 1.0 and response checks (their rules ship only with the
// option values that use them); 17.9 KB measured when that budget was set. 18.5 KiB: the default
// deadline's sweep (no timer per call) and the codec and JSON-RPC 1.0 on the client's own handlers;
// 18.0 KB measured when this budget was set. 18.75 KiB: one failure handler per send promise
// (every send of a turn shares it) and the last method name's JSON kept for the next request;
// 18.96 KB measured when this budget was set. 18.875 KiB: what a session needs only once it is
// used (its call tables, the answers still being worked out, its signal) made on first use, and
// the sends that wait for a transport's start kept beside the sessions, so that an idle server
// connection is 40 bytes smaller; 19.18 KB measured when this budget was set. 19.25 KiB: the
// HTTP transport fails a request at once when the body that came back holds no answer to it (cut
// short, or another id) instead of leaving it to its timeout; 19.62 KB measured when this budget
// was set. 19.375 KiB: the same check for each request of a batch, and for a batch answered on an
// event stream (about 0.1 KB); 19.71 KB measured when this budget was set. 19.5 KiB: the WebSocket
// client holds a turn's messages until the turn ends, and the HTTP transports read ids from the
// head with core's `headIdText`, which reads only ids in core's own form (`1.0` answered as `1`
// is matched by a parse); 19.85 KB measured when this budget was set. 19.625 KiB: the pending
// calls and the client's exchanges in core's `TurnoverMap` (a `Map` that copies itself so that
// after a full GC its old tables do not promote every call: a quarter of the speed back), about
// 0.13 KB; 19.98 KB measured when this budget was set. 19.75 KiB: a subscription's buffer in core's
// `FifoQueue` (an array's `shift` moves every item once it holds more than about 16,000: 70 µs per
// item at 100,000), about 0.07 KB; 20.13 KB measured when this budget was set.
// 20.75 KiB: a client facing a hostile server (issue: hostile peers, round 3) counts the bytes of
// every answer it reads on the fetch path and stops past `maxMessageBytes` (about 0.3 KB), the
// WebSocket client takes `maxMessageBytes` and says a 1009 close was a message too large, a malformed
// answer's `ProtocolError` names the response check it breaks (the strict checks' rule found
// only for a refused answer), and a JSON-RPC 1.0 notification over HTTP owes no answer; 20.44 KB
// measured when this budget was set.
// 21.75 KiB: what new users hit (issue: what new users hit): the client's option names checked,
// with the replacement of a renamed one named (about 0.3 KB), a call's cancel reason carried on
// the wire, contract subscriptions spread like methods and qualified naming (about 0.5 KB), and a
// WebSocket or HTTP connection that cannot open says why, within `connectTimeout` (about
// 0.35 KB); 21.49 KB measured when this budget was set (core split into its main, engine and
// testing entries changed nothing measurable).
// 22.25 KiB: the WebSocket client's option names checked too (the old `maxPayload` and `queue`
// named with their replacements), and one JSON-text skipper in core shared by the scanners
// (about 0.45 KB together); 21.94 KB measured when this budget was set.
// 22.5 KiB: the HTTP client transport's option names checked too (about 0.35 KB with the
// handlers' tables it shares a file with); 22.27 KB measured when this budget was set.
// 22.75 KiB: the WebSocket client transport, one closure of 771 lines, split into a file per
// concept (its options, socket, offline queue, turn of sends, and connection with reconnect,
// composed by `createWebSocketTransport`): the seams between them (the resolved options as an
// object, the connection's getters, the queue's and the turn's methods) cost about 0.32 KB;
// 22.65 KB measured when this budget was set (22.33 KB before the split).
// 23.125 KiB: the session sends batches itself (the client's batch records moved into core,
// about even) and core's session.ts, 782 lines, split into a file per concept (its interface,
// its sending half as the base class of its lifecycle, the waits of early sends, its transport
// handler, its cancel and progress notices): the seams (the lifecycle reaching the sending half's
// fields through static accessors, the notices as functions of their own) cost about 0.4 KB;
// 23.07 KB measured when this budget was set (22.66 KB before).
// 24.375 KiB: one incoming-call runner in core for the server and the client (issue: finish the
// one engine): the client's answers to the other side's calls now run through the server's code
// path (the failure mapping with `errorHandler` and `exposeErrorDetails`, the batch scheduler with
// its concurrency bound, the server's handling of invalid messages, settle-once with an early
// answer on abort) instead of the smaller copy it had, and its handlers' `ctx` is a class of its
// own (`ServedCall`): about 1.6 KB; 24.68 KB measured when this budget was set (23.07 KB before).
// Making the profiles, subscriptions and call context tree-shakable for apps that do not use them
// is the next cut.
export const BROWSER_CLIENT_BUDGET = 24.375 * 1024;

const root = new URL('..', import.meta.url).pathname;

/**
 * Bundles the browser client from the built packages.
 *
 * @returns {Promise<{ minified: number, gzipped: number }>} sizes in bytes
 */
export async function measureBrowserClient() {
  // esbuild is a dependency of the runtime tests, which bundle for browsers too.
  const runtimes = join(root, 'tests', 'runtimes');
  const esbuildPath = createRequire(join(runtimes, 'package.json')).resolve('esbuild');
  const { build } = await import(pathToFileURL(esbuildPath).href);
  const bundled = await build({
    stdin: {
      contents: [
        "export { createClient } from '@jsonrpc-kit/client';",
        "export { createHttpTransport } from '@jsonrpc-kit/transport-http';",
        "export { createWebSocketTransport } from '@jsonrpc-kit/transport-ws/client';",
      ].join('\n'),
      resolveDir: runtimes,
      loader: 'js',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  });
  const code = bundled.outputFiles[0].contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}
