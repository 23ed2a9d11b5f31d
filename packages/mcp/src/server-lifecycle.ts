/**
 * MCP's lifecycle methods: `initialize`, `server/discover`, `notifications/initialized`, `ping`
 * and `logging/setLevel`.
 *
 * @module
 */
import { InvalidParamsError } from '@jsonrpc-kit/core';
import { saveClientState } from './client-store.js';
import { clientStateOf, LOGGING_LEVELS } from './context.js';
import { defined, isRecord } from './records.js';
import { type McpServerCore, paramsOf, stringParam } from './server-core.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';

/**
 * Registers them on the server.
 *
 * @param core - what the server's parts share
 */
export function registerLifecycle(core: McpServerCore): void {
  const {
    options,
    server,
    versions,
    statelessVersions,
    clients,
    serverInfo,
    method,
    capabilitiesNow,
  } = core;
  // Lifecycle
  method('initialize', async (raw, ctx) => {
    const params = paramsOf(raw);
    const requested = stringParam(params, 'protocolVersion');
    const state = clientStateOf(ctx);
    state.protocolVersion = versions.includes(requested) ? requested : versions[0];
    state.capabilities = isRecord(params.capabilities)
      ? (params.capabilities as ClientCapabilities)
      : {};
    state.info = isRecord(params.clientInfo)
      ? (params.clientInfo as unknown as Implementation)
      : undefined;
    await saveClientState(ctx, clients, state);
    return defined({
      protocolVersion: state.protocolVersion,
      capabilities: capabilitiesNow(),
      serverInfo,
      instructions: options.instructions,
    });
  });
  method('server/discover', () =>
    defined({
      supportedVersions: [...statelessVersions, ...versions],
      capabilities: capabilitiesNow(),
      instructions: options.instructions,
    }),
  );
  server.notification('notifications/initialized', (_params, ctx) => {
    clientStateOf(ctx).initialized = true;
  });
  server.notification('notifications/roots/list_changed', () => {});
  method('ping', () => ({}));
  method('logging/setLevel', async (raw, ctx) => {
    const level = stringParam(paramsOf(raw), 'level');
    if (!LOGGING_LEVELS.includes(level as LoggingLevel)) {
      throw new InvalidParamsError(`Unknown logging level: ${level}`, { level });
    }
    const state = clientStateOf(ctx);
    state.logLevel = level as LoggingLevel;
    await saveClientState(ctx, clients, state);
    return {};
  });
}
