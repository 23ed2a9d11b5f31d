/**
 * A call's context on the wire: the time the caller still waits and its metadata (auth, tenant,
 * trace), as Go jrpc2's `jctx` and MCP's `params._meta` carry them. Off unless a call asks for
 * it (`request(…, { deadline, meta })`): without those options nothing here runs and the wire is
 * unchanged.
 *
 * ```text
 * duplex (WebSocket, stdio, memory):  "params": { …, "_meta": { …meta, "rpc.timeout": 1500 } }
 * HTTP (one exchange, any params):     Jsonrpc-Timeout: 1500
 *                                      Jsonrpc-Meta: {"tenant":"acme"}
 * ```
 *
 * The time travels as milliseconds left, counted when the call is sent, never as a wall-clock
 * time: the receiver adds it to its own clock, so clocks that disagree between hosts do not
 * matter (gRPC's `grpc-timeout` does the same). What it costs is the time in transit, by which
 * the receiver's deadline falls a little later than the caller's: harmless, as the caller times
 * out on its own clock anyway.
 *
 * @module
 */
import type { RequestOptions, TransportHeaders } from './endpoint.js';
import type { JsonRpcParams } from './messages.js';
import type { CallContext } from './transport.js';

export type { CallContext } from './transport.js';

/** The params member that carries the context on duplex transports, as in MCP. */
export const DEFAULT_CONTEXT_MEMBER = '_meta';

/**
 * The key of the time left, in milliseconds, inside the params member: in the `rpc.` namespace
 * JSON-RPC reserves for the protocol, so it cannot clash with the caller's own metadata.
 */
export const CONTEXT_TIMEOUT_KEY = 'rpc.timeout';

/** The HTTP header of the time left, in milliseconds (a non-negative integer). */
export const TIMEOUT_HEADER = 'jsonrpc-timeout';

/**
 * The HTTP header of the metadata: one JSON object, non-ASCII characters escaped. One header, not
 * one per member: header names are case-insensitive (Node lower-cases them), so member names and
 * value types would not survive a header per member.
 */
export const META_HEADER = 'jsonrpc-meta';

/**
 * Whether a call's options ask for its context to travel (`deadline` or `meta` is set).
 *
 * @param options - the call's options
 * @returns `true` when the call carries a context
 * @example
 * ```ts
 * hasCallContext({ timeout: 5_000 }); // false: a timeout alone stays local
 * hasCallContext({ meta: { tenant: 'acme' } }); // true
 * ```
 */
export function hasCallContext(options: RequestOptions | undefined): boolean {
  return options !== undefined && (options.deadline !== undefined || options.meta !== undefined);
}

/**
 * The context an outgoing call sends: the time left until the earlier of its `deadline` and its
 * `timeout`, and its `meta`.
 *
 * @param options - the call's options (`deadline`, `timeout`, `meta`)
 * @param defaultTimeout - the endpoint's default timeout, when the call sets none; `0`: none
 * @param now - the current time, as `Date.now()`
 * @returns the context; its `timeout` is `undefined` when nothing bounds the call, and `0` or
 *   less when the deadline has passed already
 * @example
 * ```ts
 * outgoingContext({ deadline: 1_500, meta: { tenant: 'acme' } }, 0, 1_000);
 * // { timeout: 500, meta: { tenant: 'acme' } }
 * ```
 */
export function outgoingContext(
  options: RequestOptions,
  defaultTimeout: number,
  now: number,
): CallContext {
  const deadline = options.deadline;
  const timeout = options.timeout ?? defaultTimeout;
  // `+deadline`: a number as it is, a Date as its time.
  let left = deadline === undefined ? undefined : Math.floor(+deadline - now);
  if (timeout > 0 && timeout < Infinity && (left === undefined || timeout < left)) {
    left = timeout;
  }
  return { timeout: left, meta: options.meta };
}

/**
 * Puts a context into by-name params: the member (`_meta`) gains the metadata and
 * {@link CONTEXT_TIMEOUT_KEY}; members it already holds (a progress token) stay. Absent params
 * become `{ "_meta": … }`.
 *
 * @param params - the call's params
 * @param member - the params member, {@link DEFAULT_CONTEXT_MEMBER} by default
 * @param context - what to put
 * @returns new params (`params` is not changed); by-position params as they are: they have no
 *   place for a context (an HTTP transport carries it in headers instead)
 * @example
 * ```ts
 * withCallContext({ a: 1 }, '_meta', { timeout: 500, meta: { tenant: 'acme' } });
 * // { a: 1, _meta: { tenant: 'acme', 'rpc.timeout': 500 } }
 * ```
 */
export function withCallContext(
  params: JsonRpcParams | undefined,
  member: string,
  context: CallContext,
): JsonRpcParams {
  if (Array.isArray(params)) return params;
  const existing = (params as Readonly<Record<string, unknown>> | undefined)?.[member];
  const carried: Record<string, unknown> =
    typeof existing === 'object' && existing !== null && !Array.isArray(existing)
      ? { ...existing, ...context.meta }
      : { ...context.meta };
  if (context.timeout !== undefined) carried[CONTEXT_TIMEOUT_KEY] = context.timeout;
  return { ...params, [member]: carried };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isTime = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/**
 * Reads the context of incoming params: the member's {@link CONTEXT_TIMEOUT_KEY} and its other
 * members as the metadata. The params are left as they are (the member stays, as in MCP).
 *
 * @param params - the params as received
 * @param member - the params member, {@link DEFAULT_CONTEXT_MEMBER} by default
 * @returns the context, or `undefined` when the params carry none
 * @example
 * ```ts
 * readCallContext({ _meta: { 'rpc.timeout': 500, tenant: 'acme' } }, '_meta');
 * // { timeout: 500, meta: { tenant: 'acme' } }
 * ```
 */
export function readCallContext(params: unknown, member: string): CallContext | undefined {
  if (!isRecord(params) || !Object.hasOwn(params, member)) return undefined;
  const carried = params[member];
  if (!isRecord(carried)) return undefined;
  if (!Object.hasOwn(carried, CONTEXT_TIMEOUT_KEY)) return { timeout: undefined, meta: carried };
  const { [CONTEXT_TIMEOUT_KEY]: timeout, ...meta } = carried;
  return { timeout: isTime(timeout) ? timeout : undefined, meta };
}

/**
 * The HTTP headers of a context ({@link TIMEOUT_HEADER}, {@link META_HEADER}).
 *
 * @param context - the context
 * @returns the headers (lower-case names); empty when the context holds nothing
 * @throws TypeError when the metadata cannot be serialized (a cycle, a BigInt)
 * @example
 * ```ts
 * callContextHeaders({ timeout: 500, meta: { tenant: 'Zürich' } });
 * // { 'jsonrpc-timeout': '500', 'jsonrpc-meta': '{"tenant":"Z\\u00fcrich"}' }
 * ```
 */
export function callContextHeaders(context: CallContext): Record<string, string> {
  const headers: Record<string, string> = {};
  if (context.timeout !== undefined) headers[TIMEOUT_HEADER] = String(Math.max(0, context.timeout));
  if (context.meta !== undefined) {
    // Header values are bytes: escape what is not ASCII, the JSON stays the same JSON.
    headers[META_HEADER] = JSON.stringify(context.meta).replace(
      /[^ -~]/g,
      (c) => `\\u${(c.charCodeAt(0) + 0x10000).toString(16).slice(1)}`,
    );
  }
  return headers;
}

const header = (headers: TransportHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
};

/**
 * Reads a context from HTTP request headers ({@link TIMEOUT_HEADER}, {@link META_HEADER}).
 * A malformed value is ignored (as if absent).
 *
 * @param headers - the request headers, lower-case names
 * @returns the context, or `undefined` when the headers carry none
 * @example
 * ```ts
 * readCallContextHeaders({ 'jsonrpc-timeout': '500' }); // { timeout: 500, meta: undefined }
 * ```
 */
export function readCallContextHeaders(headers: TransportHeaders): CallContext | undefined {
  const timeoutText = header(headers, TIMEOUT_HEADER);
  const metaText = header(headers, META_HEADER);
  if (timeoutText === undefined && metaText === undefined) return undefined;
  const timeout =
    timeoutText !== undefined && /^\s*\d{1,15}\s*$/.test(timeoutText)
      ? Number(timeoutText)
      : undefined;
  let meta: Record<string, unknown> | undefined;
  if (metaText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(metaText);
      if (isRecord(parsed)) meta = parsed;
    } catch {
      // Not JSON: no metadata.
    }
  }
  if (timeout === undefined && meta === undefined) return undefined;
  return { timeout, meta };
}
