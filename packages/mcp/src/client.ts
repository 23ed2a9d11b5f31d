/**
 * An MCP client on a kit client: the `initialize` handshake and version negotiation, typed calls
 * for tools, resources, prompts, completions and logging, pagination, `list_changed` follow-ups,
 * and the answers to the server's sampling, elicitation and roots requests. The parts are made
 * by concern (`client-lifecycle.ts`, `client-tools.ts`, `client-resources.ts`,
 * `client-prompts.ts`, `client-handlers.ts`, `client-mrtr.ts`) on the state made here
 * (`client-core.ts`); the public shapes are in `client-api.ts`.
 *
 * @module
 */
import { createClient } from '@jsonrpc-kit/client';
import { type McpProgress, mcpProfile, type Transport } from '@jsonrpc-kit/core';
import {
  DEFAULT_MCP_PROTOCOL_VERSION,
  MCP_CLIENT_PROTOCOL_VERSIONS,
  type McpClient,
  type McpClientOptions,
} from './client-api.js';
import type { McpClientCore } from './client-core.js';
import { answerOf, capabilitiesOf, notificationHandlerOf } from './client-handlers.js';
import { connectOf, sendStatelessMeta } from './client-lifecycle.js';
import { callOf } from './client-mrtr.js';
import { promptMethods } from './client-prompts.js';
import { resourceMethods } from './client-resources.js';
import { toolMethods } from './client-tools.js';

export {
  DEFAULT_MCP_PROTOCOL_VERSION,
  MAX_INPUT_ROUNDS,
  MAX_LIST_PAGES,
  MCP_CLIENT_PROTOCOL_VERSIONS,
  MCP_STATELESS_PROTOCOL_VERSIONS,
  type McpCallOptions,
  type McpClient,
  type McpClientHandlerContext,
  type McpClientHandlers,
  type McpClientOptions,
  type McpListChangedHandlers,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './client-api.js';
export { applyElicitationDefaults } from './client-handlers.js';

/**
 * Creates an MCP client over any kit transport: stdio (`spawnTransport` of
 * `@jsonrpc-kit/transport-stdio`), Streamable HTTP (`createStreamableHttpTransport` of
 * `@jsonrpc-kit/transport-http`) or WebSocket. Call `connect()` first: it runs the `initialize`
 * handshake (the server may choose an older version the client speaks). Cancellation and progress
 * follow MCP (`notifications/cancelled`, `notifications/progress`).
 *
 * @param transport - the connection to the server
 * @param options - name, version, capabilities, handlers for the server's requests, notification
 *   callbacks
 * @returns the client
 * @example
 * ```ts
 * const mcp = createMcpClient(spawnTransport('node', ['server.js']), { name: 'host', version: '1.0.0' });
 * await mcp.connect();
 * const result = await mcp.callTool('add', { a: 1, b: 2 });
 * ```
 */
export function createMcpClient(transport: Transport, options: McpClientOptions): McpClient {
  const capabilities = capabilitiesOf(options);
  const answer = answerOf(options);
  const rpc = createClient<McpProgress>(transport, {
    ...options.client,
    profile: mcpProfile,
    sendCancel: true,
    onRequest: (request, ctx) => answer(request.method, request.params, ctx.signal),
    onNotification: notificationHandlerOf(options, () => mcp),
  });
  const core: McpClientCore = {
    options,
    rpc,
    capabilities,
    accepted: options.protocolVersions ?? MCP_CLIENT_PROTOCOL_VERSIONS,
    clientInfo: {
      name: options.name,
      version: options.version,
      ...(options.title === undefined ? {} : { title: options.title }),
    },
    version: options.protocolVersion ?? DEFAULT_MCP_PROTOCOL_VERSION,
    initialized: undefined,
    call: callOf(rpc, answer),
  };
  sendStatelessMeta(core);

  const mcp: McpClient = {
    get server() {
      return core.initialized;
    },
    get serverCapabilities() {
      return core.initialized?.capabilities;
    },
    get protocolVersion() {
      return core.initialized === undefined ? undefined : core.version;
    },
    capabilities,
    rpc,
    connect: connectOf(core),
    ...toolMethods(core),
    ...resourceMethods(core),
    ...promptMethods(core),
    complete: (ref, argument, completionContext, callOptions) =>
      core.call(
        'completion/complete',
        completionContext === undefined
          ? { ref, argument }
          : { ref, argument, context: { arguments: completionContext } },
        callOptions,
      ),
    async setLoggingLevel(level, callOptions) {
      await core.call('logging/setLevel', { level }, callOptions);
    },
    async ping(callOptions) {
      await core.call('ping', undefined, callOptions);
    },
    rootsChanged: () => rpc.notify('notifications/roots/list_changed'),
    request: (method, params, callOptions) =>
      core.call(method, params as Record<string, unknown> | undefined, callOptions),
    close: () => rpc.close(),
    [Symbol.asyncDispose]: () => rpc.close(),
  };
  return mcp;
}
