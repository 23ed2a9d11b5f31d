/**
 * `createMcpServer()`: MCP's server methods on a kit server. Each connection (a stdio pipe, a
 * WebSocket, a Streamable HTTP session) is one client, with its own `initialize`, logging level
 * and subscriptions; tools, resources and prompts are shared by all.
 *
 * @module
 */
import {
  InvalidParamsError,
  JsonRpcError,
  MethodNotFoundError,
  mcpProfile,
  type StandardSchemaV1,
  type Transport,
  type TransportContext,
} from '@jsonrpc-kit/core';
import {
  asyncDisposeSymbol,
  formatIssues,
  isStandardSchema,
  type StandardSchemaIssue,
  validate,
} from '@jsonrpc-kit/core/engine';
import {
  type Connection,
  createServer,
  type HandlerContext,
  type Server,
  type ServerOptions,
} from '@jsonrpc-kit/server';
import {
  CallContext,
  type ClientState,
  clientStateOf,
  existingClientState,
  LOGGING_LEVELS,
  statelessClientState,
} from './context.js';
import type {
  ArgumentsOf,
  Completer,
  PromptArgs,
  PromptArgumentsOf,
  PromptDefinition,
  PromptHandler,
  PromptReturn,
  ResourceDefinition,
  ResourceHandler,
  ResourceReturn,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  StructuredOf,
  ToolDefinition,
  ToolHandler,
  ToolInput,
  ToolReturn,
} from './definitions.js';
import { objectJsonSchema } from './json-schema.js';
import { createRequestStateSeal, InputRounds, type RequestStateOptions } from './mrtr.js';
import {
  CACHEABLE_METHODS,
  type CachingHints,
  MCP_STATELESS_PROTOCOL_VERSIONS,
  META_SERVER_INFO,
  REMOVED_METHODS,
  statelessMetaOf,
} from './stateless.js';
import type {
  CallToolResult,
  ClientCapabilities,
  Content,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ResourceInfo,
} from './types.js';
import { parseUriTemplate, type UriTemplate } from './uri-template.js';

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

/** Options of {@link createMcpServer}. */
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

const serverStates = new WeakMap<McpServer, McpServerState>();

/**
 * What the HTTP layer reads of a server made by {@link createMcpServer}.
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

interface ToolEntry {
  readonly name: string;
  readonly definition: ToolDefinition<ToolInput | undefined, ToolInput | undefined>;
  readonly handler: ToolHandler<unknown, unknown>;
  listed?: Promise<Record<string, unknown>>;
}

interface ResourceEntry {
  readonly name: string;
  readonly uri: string;
  readonly definition: ResourceDefinition;
  readonly handler: ResourceHandler;
}

interface TemplateEntry {
  readonly name: string;
  readonly template: UriTemplate;
  readonly definition: ResourceTemplateDefinition;
  readonly handler: ResourceTemplateHandler;
}

interface PromptEntry {
  readonly name: string;
  readonly definition: PromptDefinition<PromptArgs | undefined>;
  readonly handler: PromptHandler<unknown>;
  listed?: Promise<Record<string, unknown>>;
}

type ListKind = 'tools' | 'resources' | 'prompts';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function paramsOf(params: unknown): Record<string, unknown> {
  if (params === undefined) return {};
  if (!isRecord(params)) throw new InvalidParamsError('Params must be an object');
  return params;
}

function stringParam(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw new InvalidParamsError(`"${name}" must be a string`);
  return value;
}

function defined<T extends Record<string, unknown>>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

function encodeCursor(offset: number): string {
  return btoa(`o:${offset}`);
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string') {
    try {
      const match = /^o:(\d+)$/.exec(atob(cursor));
      if (match) return Number(match[1]);
    } catch {
      // an invalid cursor, answered below
    }
  }
  throw new InvalidParamsError('Invalid cursor', { cursor });
}

function issuesText(issues: ReadonlyArray<StandardSchemaIssue>): string {
  return formatIssues(issues)
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function readResult(
  value: ResourceReturn,
  uri: string,
  mimeType: string | undefined,
): Record<string, unknown> {
  if (typeof value === 'string') {
    return { contents: [defined({ uri, mimeType, text: value })] };
  }
  if (value instanceof Uint8Array) {
    return { contents: [defined({ uri, mimeType, blob: bytesToBase64(value) })] };
  }
  return value as unknown as Record<string, unknown>;
}

function promptResult(value: PromptReturn, description: string | undefined): GetPromptResult {
  if (typeof value === 'string') {
    return defined({
      description,
      messages: [{ role: 'user', content: { type: 'text', text: value } }],
    }) as GetPromptResult;
  }
  if (Array.isArray(value)) {
    return defined({
      description,
      messages: value as GetPromptResult['messages'],
    }) as GetPromptResult;
  }
  const result = value as GetPromptResult;
  return result.description === undefined && description !== undefined
    ? { ...result, description }
    : result;
}

/**
 * Creates an MCP server: register tools, resources and prompts, then serve it over stdio or a
 * WebSocket (`mcp.connect(transport)`) or Streamable HTTP (`createStreamableHttpNodeHandler(mcp.server)`).
 * It answers `initialize` (protocol-version negotiation, capabilities from what is registered),
 * `ping`, `tools/*`, `resources/*`, `prompts/*`, `completion/complete` and `logging/setLevel`;
 * progress and cancellation are MCP's (core's `mcpProfile`).
 *
 * @param options - name, version, instructions, page size, options of the kit server
 * @returns the server
 * @throws TypeError when `pageSize` is not a positive integer
 * @example
 * ```ts
 * const mcp = createMcpServer({ name: 'calc', version: '1.0.0' });
 * mcp.tool('add', { input: v.object({ a: v.number(), b: v.number() }) }, ({ a, b }) => String(a + b));
 * mcp.connect(createStdioTransport({ framing: 'newline' }));
 * ```
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new TypeError('pageSize must be a positive integer');
  }
  const versions = options.protocolVersions ?? MCP_SERVER_PROTOCOL_VERSIONS;
  const server = createServer({ ...options.server, profile: mcpProfile });
  const tools = new Map<string, ToolEntry>();
  const resources = new Map<string, ResourceEntry>();
  const templates = new Map<string, TemplateEntry>();
  const prompts = new Map<string, PromptEntry>();
  const changed = new Set<ListKind>();

  const initializedClients = function* (): Generator<[Connection, ClientState]> {
    for (const connection of server.connections) {
      const state = existingClientState(connection);
      if (state?.initialized) yield [connection, state];
    }
  };
  const send = (connection: Connection, method: string, params?: Record<string, unknown>) => {
    connection.notify(method, params).catch(() => {});
  };
  const listChanged = (kind: ListKind): void => {
    if (changed.size === 0) {
      queueMicrotask(() => {
        const kinds = [...changed];
        changed.clear();
        for (const [connection] of initializedClients()) {
          for (const k of kinds) send(connection, `notifications/${k}/list_changed`);
        }
      });
    }
    changed.add(kind);
  };
  const page = <T>(items: readonly T[], cursor: unknown): { items: T[]; nextCursor?: string } => {
    const start = decodeCursor(cursor);
    const end = start + pageSize;
    const slice = items.slice(start, end);
    return end < items.length ? { items: slice, nextCursor: encodeCursor(end) } : { items: slice };
  };
  const listed = (result: Record<string, unknown>, next: string | undefined) =>
    next === undefined ? result : { ...result, nextCursor: next };
  const completers = (): boolean =>
    [...prompts.values()].some((p) => p.definition.complete !== undefined) ||
    [...templates.values()].some((t) => t.definition.complete !== undefined);

  const statelessVersions = options.statelessProtocolVersions ?? MCP_STATELESS_PROTOCOL_VERSIONS;
  const caching = {
    ttlMs: options.caching?.ttlMs ?? 0,
    cacheScope: options.caching?.cacheScope ?? 'private',
  };
  const serverInfo = defined({
    name: options.name,
    title: options.title,
    version: options.version,
  });
  /** The client of a call: its connection's (2025), or the request's `_meta` (2026). */
  const clientOf = (ctx: HandlerContext, raw: unknown): ClientState => {
    const meta = statelessMetaOf(raw, statelessVersions);
    return meta === undefined ? clientStateOf(ctx) : statelessClientState(meta);
  };
  const capabilitiesNow = (): Record<string, unknown> => {
    const capabilities: Record<string, unknown> = { logging: {} };
    if (completers()) capabilities.completions = {};
    if (prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (resources.size > 0 || templates.size > 0) {
      capabilities.resources = { subscribe: true, listChanged: true };
    }
    if (tools.size > 0) capabilities.tools = { listChanged: true };
    return capabilities;
  };
  /** The capability a method needs the server to have declared, for a stateless request. */
  const GATED: Readonly<Record<string, string>> = {
    'tools/list': 'tools',
    'tools/call': 'tools',
    'prompts/list': 'prompts',
    'prompts/get': 'prompts',
    'resources/list': 'resources',
    'resources/templates/list': 'resources',
    'resources/read': 'resources',
    'completion/complete': 'completions',
  };
  /**
   * Registers an MCP method. A stateless (2026-07-28) request of a method the revision removed,
   * or of a capability the server does not have, is -32601; its result gets `resultType`, the
   * server's identity in `_meta`, and caching hints where the revision wants them.
   */
  const method = (name: string, handler: (raw: unknown, ctx: HandlerContext) => unknown): void => {
    server.method(name, async (raw: unknown, ctx: HandlerContext) => {
      if (statelessMetaOf(raw, statelessVersions) === undefined) return handler(raw, ctx);
      const needs = GATED[name];
      if (REMOVED_METHODS.has(name) || (needs !== undefined && !(needs in capabilitiesNow()))) {
        throw new MethodNotFoundError(`Method not found: ${name}`);
      }
      const result = (await handler(raw, ctx)) as Record<string, unknown>;
      const meta = isRecord(result._meta) ? result._meta : {};
      return {
        ...result,
        ...(CACHEABLE_METHODS.has(name) ? caching : {}),
        resultType: result.resultType ?? 'complete',
        _meta: { ...meta, [META_SERVER_INFO]: serverInfo },
      };
    });
  };

  const seal = createRequestStateSeal(options.requestState);
  /**
   * Runs a handler that may ask the client for input. Under 2026-07-28 its questions end the
   * round: the answer is an `input_required` result with the questions and a sealed state
   * carrying the answers so far; a retry runs the handler again with them.
   */
  const withInput = async (
    raw: unknown,
    ctx: HandlerContext,
    binding: string,
    run: (context: CallContext) => Promise<unknown>,
  ): Promise<unknown> => {
    const client = clientOf(ctx, raw);
    if (!client.stateless) return run(new CallContext(ctx, client, raw));
    const params = paramsOf(raw);
    const given = params.inputResponses;
    if (given !== undefined && !isRecord(given)) {
      throw new InvalidParamsError('"inputResponses" must be an object');
    }
    const state = params.requestState;
    if (state !== undefined && typeof state !== 'string') {
      throw new InvalidParamsError('"requestState" must be a string');
    }
    const earlier = state === undefined ? {} : await seal.open(binding, state);
    const rounds = new InputRounds({ ...earlier, ...given });
    const done = run(new CallContext(ctx, client, raw, rounds));
    const outcome = await Promise.race([done, rounds.needed.then(() => rounds)]);
    if (outcome !== rounds) return outcome;
    const answered: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rounds.answers)) {
      if (!(key in rounds.asked)) answered[key] = value;
    }
    return {
      resultType: 'input_required',
      inputRequests: rounds.asked,
      requestState: await seal.seal(binding, answered),
    };
  };

  // Lifecycle
  method('initialize', (raw, ctx) => {
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
  method('logging/setLevel', (raw, ctx) => {
    const level = stringParam(paramsOf(raw), 'level');
    if (!LOGGING_LEVELS.includes(level as LoggingLevel)) {
      throw new InvalidParamsError(`Unknown logging level: ${level}`, { level });
    }
    clientStateOf(ctx).logLevel = level as LoggingLevel;
    return {};
  });

  // Tools
  const listTool = (tool: ToolEntry): Promise<Record<string, unknown>> => {
    tool.listed ??= (async () => {
      const { title, description, input, output, annotations, _meta } = tool.definition;
      return defined({
        name: tool.name,
        title,
        description,
        inputSchema: await objectJsonSchema(input, 'input'),
        outputSchema: output === undefined ? undefined : await objectJsonSchema(output, 'output'),
        annotations,
        _meta,
      });
    })();
    return tool.listed;
  };
  method('tools/list', async (raw) => {
    const { items, nextCursor } = page([...tools.values()], paramsOf(raw).cursor);
    return listed({ tools: await Promise.all(items.map(listTool)) }, nextCursor);
  });
  const toolResult = async (tool: ToolEntry, value: ToolReturn<unknown>) => {
    if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
    if (Array.isArray(value)) return { content: value as readonly Content[] };
    const result = value as CallToolResult<unknown> & { content?: readonly Content[] };
    const output = tool.definition.output;
    let structured = result.structuredContent;
    if (output !== undefined && result.isError !== true) {
      if (structured === undefined) {
        return errorResult(
          `Tool ${tool.name} has an output schema but returned no structured content`,
        );
      }
      if (isStandardSchema(output)) {
        const verdict = await validate(output, structured);
        if (verdict.issues) {
          return errorResult(
            `Tool ${tool.name} returned invalid structured content: ${issuesText(verdict.issues)}`,
          );
        }
        structured = verdict.value;
      }
    }
    const content =
      result.content ??
      (structured === undefined ? [] : [{ type: 'text', text: JSON.stringify(structured) }]);
    return defined({ ...result, content, structuredContent: structured });
  };
  method('tools/call', async (raw, ctx) => {
    const params = paramsOf(raw);
    const name = stringParam(params, 'name');
    const tool = tools.get(name);
    if (tool === undefined) throw new InvalidParamsError(`Unknown tool: ${name}`, { name });
    const needed = tool.definition.scopes ?? [];
    const principal = ctx.transport.auth as { scopes?: unknown } | undefined;
    if (needed.length > 0 && Array.isArray(principal?.scopes)) {
      const missing = needed.filter((scope) => !(principal.scopes as unknown[]).includes(scope));
      if (missing.length > 0) {
        throw new JsonRpcError(INSUFFICIENT_SCOPE, `Insufficient scope: ${missing.join(' ')}`, {
          scopes: [...needed],
        });
      }
    }
    const given = params.arguments ?? {};
    if (!isRecord(given)) throw new InvalidParamsError('"arguments" must be an object');
    let args: unknown = given;
    const input = tool.definition.input;
    if (input !== undefined && isStandardSchema(input)) {
      const verdict = await validate(input, given);
      if (verdict.issues) {
        return errorResult(`Invalid arguments for tool ${name}: ${issuesText(verdict.issues)}`);
      }
      args = verdict.value;
    }
    try {
      return await withInput(raw, ctx, `tools/call ${name} ${JSON.stringify(given)}`, async (c) =>
        toolResult(tool, await tool.handler(args, c)),
      );
    } catch (error) {
      if (error instanceof JsonRpcError || ctx.signal.aborted) throw error;
      return errorResult(error instanceof Error ? error.message : String(error));
    }
  });

  // Resources
  method('resources/list', async (raw, ctx) => {
    const context = new CallContext(ctx, clientOf(ctx, raw), raw);
    const all: ResourceInfo[] = [...resources.values()].map((r) =>
      defined({ uri: r.uri, name: r.name, ...r.definition }),
    );
    for (const t of templates.values()) {
      if (t.definition.list) all.push(...(await t.definition.list(context)));
    }
    const { items, nextCursor } = page(all, paramsOf(raw).cursor);
    return listed({ resources: items }, nextCursor);
  });
  method('resources/templates/list', (raw) => {
    const { items, nextCursor } = page([...templates.values()], paramsOf(raw).cursor);
    return listed(
      {
        resourceTemplates: items.map((t) => {
          const { complete: _complete, list: _list, ...shown } = t.definition;
          return defined({ uriTemplate: t.template.template, name: t.name, ...shown });
        }),
      },
      nextCursor,
    );
  });
  method('resources/read', async (raw, ctx) => {
    const uri = stringParam(paramsOf(raw), 'uri');
    const resource = resources.get(uri);
    if (resource !== undefined) {
      return withInput(raw, ctx, `resources/read ${uri}`, async (c) =>
        readResult(await resource.handler(uri, c), uri, resource.definition.mimeType),
      );
    }
    for (const t of templates.values()) {
      const variables = t.template.match(uri);
      if (variables !== undefined) {
        return withInput(raw, ctx, `resources/read ${uri}`, async (c) =>
          readResult(await t.handler(uri, variables, c), uri, t.definition.mimeType),
        );
      }
    }
    if (clientOf(ctx, raw).stateless) {
      // 2026-07-28 (SEP-2164): an unknown resource is invalid params.
      throw new InvalidParamsError(`Resource not found: ${uri}`, { uri });
    }
    throw new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  });
  method('resources/subscribe', (raw, ctx) => {
    const uri = stringParam(paramsOf(raw), 'uri');
    const state = clientStateOf(ctx);
    (state.subscriptions ??= new Set()).add(uri);
    return {};
  });
  method('resources/unsubscribe', (raw, ctx) => {
    const uri = stringParam(paramsOf(raw), 'uri');
    clientStateOf(ctx).subscriptions?.delete(uri);
    return {};
  });

  // Prompts
  const listPrompt = (prompt: PromptEntry): Promise<Record<string, unknown>> => {
    prompt.listed ??= (async () => {
      const { title, description, args, _meta } = prompt.definition;
      let argumentsShown: readonly Record<string, unknown>[] | undefined;
      if (Array.isArray(args)) argumentsShown = args as readonly Record<string, unknown>[];
      else if (args !== undefined) {
        const schema = await objectJsonSchema(args as StandardSchemaV1, 'input');
        const properties = isRecord(schema.properties) ? schema.properties : {};
        const required = Array.isArray(schema.required) ? schema.required : [];
        argumentsShown = Object.entries(properties).map(([name, property]) =>
          defined({
            name,
            title: isRecord(property) ? (property.title as string | undefined) : undefined,
            description: isRecord(property)
              ? (property.description as string | undefined)
              : undefined,
            required: required.includes(name),
          }),
        );
      }
      return defined({ name: prompt.name, title, description, arguments: argumentsShown, _meta });
    })();
    return prompt.listed;
  };
  method('prompts/list', async (raw) => {
    const { items, nextCursor } = page([...prompts.values()], paramsOf(raw).cursor);
    return listed({ prompts: await Promise.all(items.map(listPrompt)) }, nextCursor);
  });
  method('prompts/get', async (raw, ctx) => {
    const params = paramsOf(raw);
    const name = stringParam(params, 'name');
    const prompt = prompts.get(name);
    if (prompt === undefined) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
    const given = params.arguments ?? {};
    if (!isRecord(given)) throw new InvalidParamsError('"arguments" must be an object');
    let args: unknown = given;
    const schema = prompt.definition.args;
    if (Array.isArray(schema)) {
      const missing = (schema as PromptArgs as { name: string; required?: boolean }[])
        .filter((arg) => arg.required && typeof given[arg.name] !== 'string')
        .map((arg) => arg.name);
      if (missing.length > 0) {
        throw new InvalidParamsError(`Missing arguments: ${missing.join(', ')}`, { missing });
      }
    } else if (schema !== undefined) {
      const verdict = await validate(schema as StandardSchemaV1, given);
      if (verdict.issues) {
        throw new InvalidParamsError(
          `Invalid arguments for prompt ${name}: ${issuesText(verdict.issues)}`,
          formatIssues(verdict.issues),
        );
      }
      args = verdict.value;
    }
    return withInput(raw, ctx, `prompts/get ${name} ${JSON.stringify(given)}`, async (c) =>
      promptResult(await prompt.handler(args, c), prompt.definition.description),
    );
  });

  // Completions
  method('completion/complete', async (raw) => {
    const params = paramsOf(raw);
    const ref = params.ref;
    const argument = params.argument;
    if (!isRecord(ref) || !isRecord(argument)) {
      throw new InvalidParamsError('"ref" and "argument" must be objects');
    }
    const argName = stringParam(argument, 'name');
    const value = typeof argument.value === 'string' ? argument.value : '';
    let complete: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const name = stringParam(ref, 'name');
      const prompt = prompts.get(name);
      if (prompt === undefined) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
      complete = prompt.definition.complete?.[argName];
    } else if (ref.type === 'ref/resource') {
      const uri = stringParam(ref, 'uri');
      const template = templates.get(uri);
      if (template === undefined && !resources.has(uri)) {
        throw new InvalidParamsError(`Unknown resource template: ${uri}`, { uri });
      }
      complete = template?.definition.complete?.[argName];
    } else {
      throw new InvalidParamsError('"ref.type" must be "ref/prompt" or "ref/resource"');
    }
    const context =
      isRecord(params.context) && isRecord(params.context.arguments)
        ? (params.context.arguments as Record<string, string>)
        : {};
    const values = complete === undefined ? [] : await complete(value, { arguments: context });
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES),
        total: values.length,
        hasMore: values.length > MAX_COMPLETION_VALUES,
      },
    };
  });

  const remover =
    (map: Map<string, unknown>, key: string, entry: unknown, kind: ListKind) => () => {
      if (map.get(key) === entry) {
        map.delete(key);
        listChanged(kind);
      }
    };

  const mcp: McpServer = {
    server,
    tool(name, definition, handler) {
      if (!TOOL_NAME.test(name)) {
        throw new TypeError(`Invalid tool name "${name}": 1 to 128 of A-Z a-z 0-9 _ - .`);
      }
      if (tools.has(name)) throw new TypeError(`A tool is already named "${name}"`);
      const entry: ToolEntry = {
        name,
        definition: definition as ToolEntry['definition'],
        handler: handler as ToolEntry['handler'],
      };
      tools.set(name, entry);
      listChanged('tools');
      return remover(tools, name, entry, 'tools');
    },
    resource(name, uri, definition, handler) {
      if (resources.has(uri)) throw new TypeError(`A resource already has the URI "${uri}"`);
      const entry: ResourceEntry = { name, uri, definition, handler };
      resources.set(uri, entry);
      listChanged('resources');
      return remover(resources, uri, entry, 'resources');
    },
    resourceTemplate(name, uriTemplate, definition, handler) {
      if (templates.has(uriTemplate)) {
        throw new TypeError(`A resource template is already "${uriTemplate}"`);
      }
      const entry: TemplateEntry = {
        name,
        template: parseUriTemplate(uriTemplate),
        definition,
        handler,
      };
      templates.set(uriTemplate, entry);
      listChanged('resources');
      return remover(templates, uriTemplate, entry, 'resources');
    },
    prompt(name, definition, handler) {
      if (prompts.has(name)) throw new TypeError(`A prompt is already named "${name}"`);
      const entry: PromptEntry = {
        name,
        definition: definition as PromptEntry['definition'],
        handler: handler as PromptEntry['handler'],
      };
      prompts.set(name, entry);
      listChanged('prompts');
      return remover(prompts, name, entry, 'prompts');
    },
    resourceUpdated(uri) {
      for (const [connection, state] of initializedClients()) {
        if (state.subscriptions?.has(uri)) {
          send(connection, 'notifications/resources/updated', { uri });
        }
      }
    },
    log(level, data, logger) {
      const params = logger === undefined ? { level, data } : { level, logger, data };
      for (const [connection, state] of initializedClients()) {
        if (state.wants(level)) send(connection, 'notifications/message', params);
      }
    },
    connect: (transport, context) => server.connect(transport, context),
    close: () => server.close(),
    [asyncDisposeSymbol]: () => server.close(),
  };
  serverStates.set(mcp, {
    sessionVersions: versions,
    statelessVersions,
    toolScopes: (name) => tools.get(name)?.definition.scopes ?? [],
    async toolHeaders(name) {
      const tool = tools.get(name);
      if (tool === undefined) return [];
      const schema = (await listTool(tool)).inputSchema as Record<string, unknown> | undefined;
      const properties = isRecord(schema?.properties) ? schema.properties : {};
      const pairs: [string, string][] = [];
      for (const [property, value] of Object.entries(properties)) {
        const suffix = isRecord(value) ? value['x-mcp-header'] : undefined;
        if (typeof suffix === 'string') pairs.push([property, suffix]);
      }
      return pairs;
    },
  });
  return mcp;
}
