/**
 * What the parts of an MCP client share: {@link McpClientCore}, the state `createMcpClient` hands
 * each group of methods, and the helpers that read records, page through lists and shape params.
 *
 * @module
 */
import type { Client } from '@jsonrpc-kit/client';
import { type JsonRpcParams, type McpProgress, ProtocolError } from '@jsonrpc-kit/core';
import {
  MAX_LIST_PAGES,
  MCP_STATELESS_PROTOCOL_VERSIONS,
  type McpCallOptions,
  type McpClientOptions,
} from './client-api.js';
import type { InitializeResult } from './client-types.js';
import { isRecord } from './records.js';
import type { ClientCapabilities, Implementation } from './types.js';

/**
 * Answers a server→client request (on the wire, or one of an `input_required` result).
 *
 * @param method - the request's method
 * @param rawParams - its params
 * @param signal - aborted when the request is cancelled
 * @returns the result
 */
export type McpAnswer = (
  method: string,
  rawParams: unknown,
  signal: AbortSignal,
) => Promise<unknown>;

/** The state `createMcpClient` makes and hands each group of methods. */
export interface McpClientCore {
  /** The options the client was made with. */
  readonly options: McpClientOptions;
  /** The kit client underneath. */
  readonly rpc: Client<McpProgress>;
  /** The capabilities the client declares. */
  readonly capabilities: ClientCapabilities;
  /** The versions the client accepts in the server's answer. */
  readonly accepted: readonly string[];
  /** The client's name, title and version. */
  readonly clientInfo: Implementation;
  /** The version in use: asked for until the server answers, then the one it chose. */
  version: string;
  /** The server's answer to `initialize` (or `server/discover`), once connected. */
  initialized: InitializeResult | undefined;
  /**
   * Sends a request and answers its `input_required` rounds.
   *
   * @param method - the method
   * @param params - its params
   * @param callOptions - signal, timeout, progress, meta
   * @returns the result
   */
  call<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    callOptions: McpCallOptions | undefined,
  ): Promise<T>;
}

/**
 * Whether the version in use is stateless (no `initialize`; `_meta` on every request).
 *
 * @param core - what the client's parts share
 * @returns whether it is
 */
export const isStateless = (core: McpClientCore): boolean =>
  MCP_STATELESS_PROTOCOL_VERSIONS.includes(core.version);

/**
 * A request's `_meta`, when it has one.
 *
 * @param params - the request's params
 * @returns its `_meta`
 */
export function metaOf(
  params: JsonRpcParams | undefined,
): Readonly<Record<string, unknown>> | undefined {
  const meta = isRecord(params) ? params._meta : undefined;
  return isRecord(meta) ? meta : undefined;
}

/**
 * The params of a list request.
 *
 * @param cursor - the page's cursor
 * @returns `{ cursor }`, or nothing for the first page
 */
export const cursorParams = (cursor: string | undefined): Record<string, unknown> | undefined =>
  cursor === undefined ? undefined : { cursor };

/** A page whose items are under `K`. */
export type ListPage<K extends string, T> = { readonly nextCursor?: string } & {
  readonly [key in K]?: readonly T[];
};

/**
 * Every item of a list, page after page.
 *
 * @param method - the list method (for the errors)
 * @param key - where a page has its items
 * @param page - fetches one page
 * @returns the items
 * @throws ProtocolError after {@link MAX_LIST_PAGES} pages, or when a cursor repeats
 */
export const listAll = async <K extends string, T>(
  method: string,
  key: K,
  page: (cursor: string | undefined) => Promise<ListPage<K, T>>,
): Promise<T[]> => {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages >= MAX_LIST_PAGES) {
      throw new ProtocolError(`${method}: more than ${MAX_LIST_PAGES} pages`);
    }
    const result = await page(cursor);
    const got = result[key];
    if (Array.isArray(got)) items.push(...(got as T[]));
    cursor = result.nextCursor;
    if (cursor === undefined) return items;
    if (seen.has(cursor)) throw new ProtocolError(`${method}: the cursor ${cursor} came twice`);
    seen.add(cursor);
  }
};
