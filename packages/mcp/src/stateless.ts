/**
 * MCP 2026-07-28, the stateless revision: what a request carries in `_meta` instead of an
 * `initialize` handshake, the errors the revision names, and the caching hints of its results.
 *
 * @module
 */

import { isRecord } from './records.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';

/** The stateless MCP revisions this server speaks (no `initialize`, per-request `_meta`), newest first. */
export const MCP_STATELESS_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** The `_meta` key of a request's protocol version (2026-07-28). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
/** The `_meta` key of a request's client capabilities (2026-07-28). */
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** The `_meta` key of a request's client name and version (2026-07-28). */
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
/** The `_meta` key of the least severe level a request wants logged (2026-07-28; none: no logs). */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
/** The `_meta` key of the server's name and version on a result (2026-07-28). */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** MCP's error code for HTTP headers that do not match the body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `MCP-Protocol-Version`). */
export const HEADER_MISMATCH = -32020;
/** MCP's error code for a request that needs a client capability the request did not declare. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** MCP's error code for a protocol version the server does not speak. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Caching hints of list and read results (2026-07-28): how long a client may keep one, and for whom. */
export interface CachingHints {
  /**
   * Milliseconds the result may be reused; `0`: not at all.
   *
   * @default 0
   */
  readonly ttlMs?: number;
  /**
   * `'private'`: for this client only; `'public'`: shared caches may keep it.
   *
   * @default 'private'
   */
  readonly cacheScope?: 'public' | 'private';
}

/** What a 2026-07-28 request says about its client in `_meta`. */
export interface RequestMeta {
  /** The protocol version. */
  readonly protocolVersion: string;
  /** The client's capabilities for this request. */
  readonly capabilities: ClientCapabilities;
  /** The client's name and version, when given. */
  readonly info: Implementation | undefined;
  /** The least severe level to log, when given. */
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * The `_meta` of a request's params, if it is an object.
 *
 * @param params - the request's params
 * @returns its `_meta`
 */
export function metaOf(params: unknown): Record<string, unknown> | undefined {
  const meta = isRecord(params) ? params._meta : undefined;
  return isRecord(meta) ? meta : undefined;
}

/**
 * The 2026 client facts of a request: present when its `_meta` names a stateless revision this
 * server speaks.
 *
 * @param params - the request's params
 * @param versions - the stateless revisions accepted
 * @returns the facts, or `undefined` for a request of a 2025 revision
 */
export function statelessMetaOf(
  params: unknown,
  versions: readonly string[] = MCP_STATELESS_PROTOCOL_VERSIONS,
): RequestMeta | undefined {
  const meta = metaOf(params);
  const version = meta?.[META_PROTOCOL_VERSION];
  if (meta === undefined || typeof version !== 'string' || !versions.includes(version)) {
    return undefined;
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  const info = meta[META_CLIENT_INFO];
  const level = meta[META_LOG_LEVEL];
  return {
    protocolVersion: version,
    capabilities: isRecord(capabilities) ? (capabilities as ClientCapabilities) : {},
    info: isRecord(info) ? (info as unknown as Implementation) : undefined,
    logLevel: typeof level === 'string' ? (level as LoggingLevel) : undefined,
  };
}

/** The methods whose 2026 results carry caching hints. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** The 2025 methods the stateless revision removed: answered -32601 to a 2026 request. */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);
