/**
 * The MCP client's lifecycle: the `initialize` handshake and its version check, 2026-07-28's
 * stateless `server/discover` (moving to a version the server supports), and the `_meta` every
 * stateless request carries.
 *
 * @module
 */
import { isJsonRpcError, JsonRpcError, ProtocolError } from '@jsonrpc-kit/core';
import { UNSUPPORTED_PROTOCOL_VERSION } from './client-api.js';
import { isStateless, type McpClientCore } from './client-core.js';
import type { InitializeResult } from './client-types.js';
import { isRecord } from './records.js';
import type { Implementation } from './types.js';

/** The `_meta` key of a stateless result that carries the server's name and version. */
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/**
 * Puts the version, client info and capabilities in every request's `_meta` while the version in
 * use is stateless.
 *
 * @param core - what the client's parts share
 */
export function sendStatelessMeta(core: McpClientCore): void {
  const { rpc, clientInfo, capabilities } = core;
  // Stateless versions: every request carries the version, client info and capabilities.
  rpc.use((outgoing, next) => {
    if (outgoing.kind !== 'request' || !isStateless(core)) return next();
    const params = outgoing.params;
    if (params !== undefined && !isRecord(params)) return next();
    outgoing.params = {
      ...params,
      _meta: {
        ...(isRecord(params?._meta) ? params._meta : {}),
        'io.modelcontextprotocol/protocolVersion': core.version,
        'io.modelcontextprotocol/clientInfo': clientInfo,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    };
    return next();
  });
}

/**
 * The client's `connect()`: `initialize` and `notifications/initialized`, or `server/discover`
 * for a stateless version; called again, the same answer.
 *
 * @param core - what the client's parts share
 * @returns `connect()`
 */
export function connectOf(core: McpClientCore): () => Promise<InitializeResult> {
  const { rpc, accepted, capabilities, clientInfo } = core;
  let connecting: Promise<InitializeResult> | undefined;

  /**
   * The stateless lifecycle's `server/discover`: a server that answers the version unsupported
   * names those it supports; the client moves to one it speaks and asks again, once.
   */
  const discover = async (): Promise<InitializeResult> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await rpc.request<Record<string, unknown>>('server/discover', {});
        const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
        if (supported.length > 0 && !supported.includes(core.version)) {
          const chosen = supported.find(
            (v): v is string => typeof v === 'string' && accepted.includes(v),
          );
          if (chosen === undefined) throw unsupported(supported);
          core.version = chosen;
        }
        // The revision puts the server's name and version in the result's `_meta`.
        const info = isRecord(result._meta) ? result._meta[SERVER_INFO_META] : undefined;
        const serverInfo = isRecord(info) ? info : result.serverInfo;
        return {
          protocolVersion: core.version,
          capabilities: isRecord(result.capabilities) ? result.capabilities : {},
          serverInfo: (isRecord(serverInfo)
            ? serverInfo
            : { name: '', version: '' }) as Implementation,
          ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
        };
      } catch (caught) {
        const error = rpcErrorOf(caught);
        if (isJsonRpcError(error) && error.code === -32601) {
          // No discovery: the version asked for stands, the capabilities are unknown.
          return {
            protocolVersion: core.version,
            capabilities: {},
            serverInfo: { name: '', version: '' },
          };
        }
        if (!isJsonRpcError(error) || error.code !== UNSUPPORTED_PROTOCOL_VERSION || attempt > 0) {
          throw error;
        }
        const data = error.data;
        const supported = isRecord(data) && Array.isArray(data.supported) ? data.supported : [];
        const chosen = supported.find(
          (v): v is string => typeof v === 'string' && accepted.includes(v),
        );
        if (chosen === undefined) throw unsupported(supported);
        core.version = chosen;
      }
    }
  };
  /** A JSON-RPC error a server sent with a 4xx status arrives as the transport's error body. */
  const rpcErrorOf = (error: unknown): unknown => {
    const body = isRecord(error) ? error.body : undefined;
    if (isJsonRpcError(error) || typeof body !== 'string') return error;
    try {
      const parsed = JSON.parse(body) as unknown;
      const inner = isRecord(parsed) ? parsed.error : undefined;
      if (isRecord(inner) && typeof inner.code === 'number') {
        return new JsonRpcError(inner.code, String(inner.message ?? ''), inner.data);
      }
    } catch {
      // not JSON
    }
    return error;
  };
  const unsupported = (supported: readonly unknown[]): ProtocolError =>
    new ProtocolError(
      `server/discover: the server supports ${supported.join(', ') || 'no version'}, none of which this client speaks (${accepted.join(', ')})`,
      supported,
    );

  return () => {
    connecting ??= (async () => {
      if (isStateless(core)) {
        core.initialized = await discover();
        return core.initialized;
      }
      const result = await rpc.request<InitializeResult>('initialize', {
        protocolVersion: core.version,
        capabilities: capabilities as Record<string, unknown>,
        clientInfo: clientInfo as Record<string, unknown>,
      });
      if (!isRecord(result) || !accepted.includes(result.protocolVersion)) {
        await rpc.close();
        throw new ProtocolError(
          `initialize: the server chose protocol version ${String(
            isRecord(result) ? result.protocolVersion : undefined,
          )}, which this client does not speak (${accepted.join(', ')})`,
          result,
        );
      }
      core.version = result.protocolVersion;
      core.initialized = {
        ...result,
        capabilities: isRecord(result.capabilities) ? result.capabilities : {},
      };
      await rpc.notify('notifications/initialized');
      return core.initialized;
    })();
    return connecting;
  };
}
