/**
 * Default limits of the server.
 *
 * @module
 */
import type { TransportContext } from '@jsonrpc-kit/core';

/**
 * Largest accepted request text of a {@link createProxy} proxy, in UTF-8 bytes (16 MiB): what the
 * kit's client transports carry upstream by default (stdio, HTTP, WebSocket), so that a proxy does
 * not refuse what its upstream takes (a large `textDocument/didOpen`, say). Transport adapters
 * serving the proxy adopt it, as they adopt any server's `maxMessageBytes`.
 * @default 16777216
 * @example
 * ```ts
 * createProxy(upstream, { maxMessageBytes: DEFAULT_PROXY_MAX_MESSAGE_BYTES / 4 });
 * ```
 */
export const DEFAULT_PROXY_MAX_MESSAGE_BYTES: number = 16 * 1024 * 1024;

/**
 * Longest accepted batch.
 * @default 100
 * @example
 * ```ts
 * createServer({ maxBatchSize: DEFAULT_MAX_BATCH_SIZE * 2 });
 * ```
 */
export const DEFAULT_MAX_BATCH_SIZE: number = 100;

/**
 * How many members of one batch run at once.
 * @default 16
 * @example
 * ```ts
 * createServer({ batchConcurrency: DEFAULT_BATCH_CONCURRENCY / 2 });
 * ```
 */
export const DEFAULT_BATCH_CONCURRENCY: number = 16;

/**
 * How many calls run at once per connection (and across all `handle()` calls of a server).
 * @default 64
 * @example
 * ```ts
 * createServer({ maxConcurrency: DEFAULT_MAX_CONCURRENCY * 4 });
 * ```
 */
export const DEFAULT_MAX_CONCURRENCY: number = 64;

/**
 * The client a `handle()` exchange belongs to, for fair admission: its remote address. Internal
 * (the default of `ServerOptions.clientKey`).
 *
 * @param context - the exchange's transport context
 * @returns the remote address, or `undefined` (counted with no client)
 */
export function defaultClientKey(context: TransportContext): string | undefined {
  return context.remoteAddress;
}

/**
 * How many calls may wait beyond the concurrency limit before -32002.
 * @default 1024
 * @example
 * ```ts
 * createServer({ maxQueue: DEFAULT_MAX_QUEUE / 4 });
 * ```
 */
export const DEFAULT_MAX_QUEUE: number = 1024;
