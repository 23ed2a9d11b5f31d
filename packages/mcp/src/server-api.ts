/**
 * The public shapes of an MCP server: its constants, {@link McpServerOptions}, {@link McpServer},
 * and what the HTTP layer reads of a server ({@link stateOf}).
 *
 * @module
 */

import type { Transport, TransportContext } from '@jsonrpc-kit/core';
import type { Connection, Server, ServerOptions } from '@jsonrpc-kit/server';
import type { McpClientStore } from './client-store.js';
import type {
  ArgumentsOf,
  PromptArgs,
  PromptArgumentsOf,
  PromptDefinition,
  PromptHandler,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  StructuredOf,
  ToolDefinition,
  ToolHandler,
  ToolInput,
} from './definitions.js';
import type { RequestStateOptions } from './mrtr.js';
import type { CachingHints } from './stateless.js';
import type { TaskOptions } from './tasks/tasks.js';
import type { LoggingLevel } from './types.js';

/** The MCP revisions with `initialize` this server speaks, newest first; `initialize` answers the newest one for a version it does not know. */
export const MCP_SERVER_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
];

/**
 * Items per page of `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`.
 *
 * @default 100
 */
export const DEFAULT_PAGE_SIZE = 100;

/** The most values one `completion/complete` answer holds (MCP's bound). */
export const MAX_COMPLETION_VALUES = 100;

/**
 * The notifications an MCP server sends outside any request: give them to the Streamable HTTP
 * handler as `pushMethods`, so that they always go on the session's GET stream, as MCP's SDKs send
 * them, never on the stream of a request that happens to be running.
 */
export const MCP_PUSH_METHODS: readonly string[] = [
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
];

/** MCP's error code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

/** Options of `createMcpServer`. */
export interface McpServerOptions {
  /** The server's name, in `serverInfo`. */
  readonly name: string;
  /** Its version, in `serverInfo`. */
  readonly version: string;
  /** A title for people, in `serverInfo`. */
  readonly title?: string;
  /** How to use the server, for the model (`instructions` of `initialize`). */
  readonly instructions?: string;
  /**
   * Items per page of the lists.
   *
   * @default {@link DEFAULT_PAGE_SIZE}
   */
  readonly pageSize?: number;
  /**
   * The protocol versions to accept, newest first.
   *
   * @default {@link MCP_SERVER_PROTOCOL_VERSIONS}
   */
  readonly protocolVersions?: readonly string[];
  /**
   * The stateless revisions to accept (requests that carry their protocol version, client info
   * and capabilities in `_meta`, with no `initialize`), newest first; `[]` for none.
   *
   * @default {@link MCP_STATELESS_PROTOCOL_VERSIONS}
   */
  readonly statelessProtocolVersions?: readonly string[];
  /**
   * Caching hints (`ttlMs`, `cacheScope`) of `server/discover`, the list results and
   * `resources/read` answered to a stateless (2026-07-28) request.
   *
   * @default `{ ttlMs: 0, cacheScope: 'private' }`
   */
  readonly caching?: CachingHints;
  /**
   * How the `requestState` of an `input_required` result (2026-07-28) is sealed: HMAC keys (the
   * first seals, all open: rotation) and a lifetime. Give every process of a cluster the same
   * keys; left out, each process has a random key of its own.
   */
  readonly requestState?: RequestStateOptions;
  /**
   * Where what the server knows of each client (its `initialize`, logging level, subscriptions) is
   * kept by Streamable HTTP session id, for a cluster: give every process the same store, with
   * the handler's shared session store, event store and relay, and any process serves any request
   * of a session. Each request of such a session reads its client's record first.
   *
   * @default none: each process knows the clients that initialized on it
   */
  readonly clients?: McpClientStore;
  /**
   * The Tasks extension (`io.modelcontextprotocol/tasks`), served once a tool has `taskSupport`:
   * where tasks live (a store shared by the processes of a cluster), how long they are kept and
   * the polling interval suggested to clients.
   */
  readonly tasks?: TaskOptions;
  /** Options of the kit server underneath (limits, timeouts, `onError`); its profile is MCP's. */
  readonly server?: Omit<ServerOptions, 'profile'>;
}

/** An MCP server: register tools, resources and prompts, then serve transports. */
export interface McpServer extends AsyncDisposable {
  /** The kit server underneath: give it to a transport handler (`createStreamableHttpNodeHandler(mcp.server)`). */
  readonly server: Server;
  /**
   * Registers a tool. Registered or removed after clients connected, it tells them
   * (`notifications/tools/list_changed`).
   *
   * @param name - its name (1 to 128 of `A-Z a-z 0-9 _ - .`)
   * @param definition - title, description, input and output schemas, annotations
   * @param handler - runs it with the validated arguments
   * @returns a function that removes it
   * @throws TypeError when the name is taken or not a valid tool name
   */
  tool<I extends ToolInput | undefined = undefined, O extends ToolInput | undefined = undefined>(
    name: string,
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<ArgumentsOf<I>, StructuredOf<O>>,
  ): () => void;
  /**
   * Registers a resource at a fixed URI.
   *
   * @param name - its name
   * @param uri - its URI
   * @param definition - title, description, MIME type
   * @param handler - reads it
   * @returns a function that removes it
   * @throws TypeError when another resource has the URI
   */
  resource(
    name: string,
    uri: string,
    definition: ResourceDefinition,
    handler: ResourceHandler,
  ): () => void;
  /**
   * Registers a resource template (RFC 6570: `test://items/{id}`): `resources/read` of a URI that
   * fits it calls the handler with the variables.
   *
   * @param name - its name
   * @param uriTemplate - the template
   * @param definition - title, description, MIME type, completions, a list of its resources
   * @param handler - reads one of its resources
   * @returns a function that removes it
   * @throws TypeError when the template is taken or cannot be parsed
   */
  resourceTemplate(
    name: string,
    uriTemplate: string,
    definition: ResourceTemplateDefinition,
    handler: ResourceTemplateHandler,
  ): () => void;
  /**
   * Registers a prompt.
   *
   * @param name - its name
   * @param definition - title, description, arguments, completions
   * @param handler - builds its messages from the arguments
   * @returns a function that removes it
   * @throws TypeError when the name is taken
   */
  prompt<A extends PromptArgs | undefined = undefined>(
    name: string,
    definition: PromptDefinition<A>,
    handler: PromptHandler<PromptArgumentsOf<A>>,
  ): () => void;
  /**
   * Tells the clients subscribed to a resource that it changed (`notifications/resources/updated`).
   *
   * @param uri - the resource's URI
   */
  resourceUpdated(uri: string): void;
  /**
   * Sends a log message to every client whose level asks for it.
   *
   * @param level - how severe
   * @param data - a message or any JSON value
   * @param logger - which part of the server speaks
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Serves a duplex transport (stdio, WebSocket, memory): one client.
   *
   * @param transport - the transport
   * @param context - facts about it
   * @returns the connection
   */
  connect(transport: Transport, context?: TransportContext): Connection;
  /**
   * Closes every connection.
   *
   * @returns resolves once they are closed
   */
  close(): Promise<void>;
}

/** What the HTTP layer reads of a server. */
export interface McpServerState {
  /** The revisions with `initialize`. */
  readonly sessionVersions: readonly string[];
  /** The stateless revisions. */
  readonly statelessVersions: readonly string[];
  /**
   * The `x-mcp-header` annotations of a tool's input: `[property, header suffix]` pairs.
   *
   * @param name - the tool's name
   * @returns its pairs (none for an unknown tool)
   */
  toolHeaders(name: string): Promise<ReadonlyArray<readonly [string, string]>>;
  /**
   * The scopes a tool declares (`scopes` of its definition).
   *
   * @param name - the tool's name
   * @returns its scopes (none for an unknown tool)
   */
  toolScopes(name: string): readonly string[];
}

/** The JSON-RPC error code of a tool call whose principal lacks the tool's `scopes`. */
export const INSUFFICIENT_SCOPE = -32003;

/** The state of each server `createMcpServer` made. */
export const serverStates: WeakMap<McpServer, McpServerState> = new WeakMap();

/**
 * What the HTTP layer reads of a server made by `createMcpServer`.
 *
 * @param mcp - the server
 * @returns its state
 * @throws TypeError for an object `createMcpServer` did not make
 */
export function stateOf(mcp: McpServer): McpServerState {
  const state = serverStates.get(mcp);
  if (state === undefined) throw new TypeError('Not a server made by createMcpServer()');
  return state;
}
