/**
 * An MCP client on a kit client: the `initialize` handshake and version negotiation, typed calls
 * for tools, resources, prompts, completions and logging, pagination, `list_changed` follow-ups,
 * and the answers to the server's sampling, elicitation and roots requests.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { type Client, type ClientOptions, createClient } from '@jsonrpc-kit/client';
import {
  type IncomingContext,
  isJsonRpcError,
  JsonRpcError,
  type JsonRpcParams,
  type JsonRpcRequest,
  type McpProgress,
  MethodNotFoundError,
  mcpProfile,
  ProtocolError,
  type Transport,
} from '@jsonrpc-kit/core';
import { type McpFetch, toolHeaderNames } from './client-http.js';
import type {
  CompleteResult,
  CompletionReference,
  InitializeResult,
  JsonSchemaObject,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LogMessage,
  PromptInfo,
  ReadResourceResult,
  ResourceTemplateInfo,
  ServerCapabilities,
  ToolInfo,
} from './client-types.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ResourceInfo,
  Root,
} from './types.js';

/**
 * The protocol versions the client speaks, newest first. `2026-07-28` (the draft) is stateless:
 * no `initialize`, the version, client info and capabilities in each request's `_meta`.
 */
export const MCP_CLIENT_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
]);

/**
 * The protocol version a client asks for unless told otherwise.
 *
 * @default '2025-11-25'
 */
export const DEFAULT_MCP_PROTOCOL_VERSION = '2025-11-25';

/** The `_meta` key of a stateless result that carries the server's name and version. */
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** The versions whose lifecycle is stateless (no `initialize`; `_meta` on every request). */
export const MCP_STATELESS_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2026-07-28']);

/**
 * The most `input_required` rounds (MRTR) one call answers before it fails with a
 * `ProtocolError`.
 *
 * @default 16
 */
export const MAX_INPUT_ROUNDS = 16;

/** The error a server answers for a protocol version it does not speak (2026-07-28). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * The most pages a `listAll*` helper follows before it stops with a `ProtocolError` (a server
 * whose cursors never end).
 *
 * @default 1000
 */
export const MAX_LIST_PAGES = 1000;

/** What a handler of a server→client request gets beside the params. */
export interface McpClientHandlerContext {
  /** Aborted when the server cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  /** The request's `_meta` (the server's progress token, related task, …). */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
}

/** How the client answers what the server asks of it; each one declares its capability. */
export interface McpClientHandlers {
  /** Answers `sampling/createMessage` (declares `sampling`). */
  readonly sampling?: (
    params: CreateMessageParams,
    ctx: McpClientHandlerContext,
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  /**
   * Answers `elicitation/create` (declares `elicitation` with `form`, and `url` when
   * {@link McpClientOptions.elicitationUrl} is set). An accepted form's content gets the defaults
   * of the requested schema for the fields it leaves out (SEP-1034), unless
   * {@link McpClientOptions.applyElicitationDefaults} is `false`.
   */
  readonly elicitation?: (
    params: ElicitParams,
    ctx: McpClientHandlerContext,
  ) => ElicitResult | Promise<ElicitResult>;
  /** Answers `roots/list` (declares `roots` with `listChanged`). */
  readonly roots?: (ctx: McpClientHandlerContext) => readonly Root[] | Promise<readonly Root[]>;
}

/** What the client does when the server says a list changed; each gets the whole new list. */
export interface McpListChangedHandlers {
  /** After `notifications/tools/list_changed`: the tools, listed again. */
  readonly tools?: (tools: readonly ToolInfo[]) => void;
  /** After `notifications/resources/list_changed`: the resources, listed again. */
  readonly resources?: (resources: readonly ResourceInfo[]) => void;
  /** After `notifications/prompts/list_changed`: the prompts, listed again. */
  readonly prompts?: (prompts: readonly PromptInfo[]) => void;
}

/** Options of {@link createMcpClient}. */
export interface McpClientOptions {
  /** The client's name, sent as `clientInfo.name`. */
  readonly name: string;
  /** The client's version. */
  readonly version: string;
  /** A human-readable name. */
  readonly title?: string;
  /**
   * Capabilities beyond those the handlers declare (merged over them).
   *
   * @default {}
   */
  readonly capabilities?: ClientCapabilities;
  /** Answers to the server's requests. */
  readonly handlers?: McpClientHandlers;
  /**
   * The protocol version asked for in `initialize`; the server may answer an older one of
   * {@link McpClientOptions.protocolVersions}. A stateless version (`2026-07-28`) sends no
   * `initialize`: `connect()` asks `server/discover`, and each request carries the version,
   * client info and capabilities in its `_meta`; `input_required` results are answered with the
   * handlers and the request is sent again (MRTR).
   *
   * @default '2025-11-25'
   */
  readonly protocolVersion?: string;
  /**
   * The versions the client accepts in the server's answer.
   *
   * @default {@link MCP_CLIENT_PROTOCOL_VERSIONS}
   */
  readonly protocolVersions?: readonly string[];
  /**
   * Fill an accepted elicitation's missing fields with the requested schema's defaults.
   *
   * @default true
   */
  readonly applyElicitationDefaults?: boolean;
  /** Declare the URL mode of elicitation too. @default false */
  readonly elicitationUrl?: boolean;
  /**
   * Check a tool's `structuredContent` against the `outputSchema` `tools/list` gave (the tools
   * listed through this client). A result that breaks it rejects with a `ProtocolError`.
   *
   * @default true
   */
  readonly validateOutput?: boolean;
  /**
   * The `fetch` of {@link createMcpFetch} the transport uses: told the tools listed, so it sends
   * their `x-mcp-header` arguments as `Mcp-Param-*` headers.
   */
  readonly http?: McpFetch;
  /** Re-list and pass on a list the server says changed. */
  readonly onListChanged?: McpListChangedHandlers;
  /** `notifications/resources/updated`: a subscribed resource changed. */
  readonly onResourceUpdated?: (uri: string) => void;
  /** `notifications/message`: a log message. */
  readonly onLog?: (message: LogMessage) => void;
  /** Every other notification the server sends. */
  readonly onNotification?: (method: string, params: JsonRpcParams | undefined) => void;
  /**
   * Options of the kit client underneath (timeouts, `onError`, middleware hooks). Its profile is
   * `mcpProfile` and cancellations are sent, whatever is given here.
   */
  readonly client?: Omit<
    ClientOptions<McpProgress>,
    'profile' | 'onRequest' | 'onNotification' | 'sendCancel'
  >;
}

/** Per-call options of the client's methods. */
export interface McpCallOptions {
  /** Cancels the call: `notifications/cancelled` goes to the server, the call rejects. */
  readonly signal?: AbortSignal;
  /** Milliseconds before the call fails (and is cancelled). */
  readonly timeout?: number;
  /** Receives `notifications/progress` for this call (a progress token is sent). */
  readonly onProgress?: (progress: McpProgress) => void;
  /** Start the timeout over at each progress notification. @default false */
  readonly resetTimeoutOnProgress?: boolean;
  /** `_meta` to send with the request. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** An MCP client; see {@link createMcpClient}. */
export interface McpClient {
  /**
   * Sends `initialize` and, once the server answered a version the client speaks,
   * `notifications/initialized` (stateless versions: `server/discover`, moving to a version the
   * server says it supports). Called once; later calls give the same answer.
   *
   * @returns the server's answer
   * @throws ProtocolError when the server chose a version the client does not speak (the
   *   connection is closed)
   */
  connect(): Promise<InitializeResult>;
  /** The server's answer to `initialize`, once connected. */
  readonly server: InitializeResult | undefined;
  /** The capabilities the server declared, once connected. */
  readonly serverCapabilities: ServerCapabilities | undefined;
  /** The protocol version in use, once connected. */
  readonly protocolVersion: string | undefined;
  /** The capabilities the client declares. */
  readonly capabilities: ClientCapabilities;
  /**
   * One page of tools. The output schemas are kept for `callTool`'s check.
   *
   * @param cursor - the page's cursor (from the previous page)
   * @param options - signal, timeout, meta
   * @returns the page
   */
  listTools(cursor?: string, options?: McpCallOptions): Promise<ListToolsResult>;
  /**
   * Every tool, page after page.
   *
   * @param options - signal, timeout, meta
   * @returns the tools
   * @throws ProtocolError after {@link MAX_LIST_PAGES} pages, or when a cursor repeats
   */
  listAllTools(options?: McpCallOptions): Promise<ToolInfo[]>;
  /**
   * Calls a tool. `S` types its `structuredContent`; with an `outputSchema` listed, the
   * structured content is checked against it.
   *
   * @param name - the tool
   * @param args - its arguments
   * @param options - progress, signal, timeout, meta
   * @returns the result (a failing tool is `isError: true`, not a rejection)
   * @throws JsonRpcError for a protocol error (unknown tool), ProtocolError for structured
   *   content that breaks the output schema
   */
  callTool<S = Readonly<Record<string, unknown>>>(
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpCallOptions,
  ): Promise<CallToolResult<S>>;
  /**
   * One page of resources.
   *
   * @param cursor - the page's cursor
   * @param options - signal, timeout, meta
   * @returns the page
   */
  listResources(cursor?: string, options?: McpCallOptions): Promise<ListResourcesResult>;
  /**
   * Every resource, page after page.
   *
   * @param options - signal, timeout, meta
   * @returns the resources
   */
  listAllResources(options?: McpCallOptions): Promise<ResourceInfo[]>;
  /**
   * One page of resource templates.
   *
   * @param cursor - the page's cursor
   * @param options - signal, timeout, meta
   * @returns the page
   */
  listResourceTemplates(
    cursor?: string,
    options?: McpCallOptions,
  ): Promise<ListResourceTemplatesResult>;
  /**
   * Every resource template, page after page.
   *
   * @param options - signal, timeout, meta
   * @returns the templates
   */
  listAllResourceTemplates(options?: McpCallOptions): Promise<ResourceTemplateInfo[]>;
  /**
   * Reads a resource.
   *
   * @param uri - its URI
   * @param options - signal, timeout, meta
   * @returns its contents
   * @throws JsonRpcError -32002 when the server has no such resource
   */
  readResource(uri: string, options?: McpCallOptions): Promise<ReadResourceResult>;
  /**
   * Subscribes to a resource's updates (`onResourceUpdated` receives them).
   *
   * @param uri - its URI
   * @param options - signal, timeout
   * @returns resolves once the server agreed
   */
  subscribeResource(uri: string, options?: McpCallOptions): Promise<void>;
  /**
   * Ends a subscription.
   *
   * @param uri - its URI
   * @param options - signal, timeout
   * @returns resolves once the server agreed
   */
  unsubscribeResource(uri: string, options?: McpCallOptions): Promise<void>;
  /**
   * One page of prompts.
   *
   * @param cursor - the page's cursor
   * @param options - signal, timeout, meta
   * @returns the page
   */
  listPrompts(cursor?: string, options?: McpCallOptions): Promise<ListPromptsResult>;
  /**
   * Every prompt, page after page.
   *
   * @param options - signal, timeout, meta
   * @returns the prompts
   */
  listAllPrompts(options?: McpCallOptions): Promise<PromptInfo[]>;
  /**
   * Gets a prompt's messages.
   *
   * @param name - the prompt
   * @param args - its arguments (strings)
   * @param options - signal, timeout, meta
   * @returns the messages
   */
  getPrompt(
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: McpCallOptions,
  ): Promise<GetPromptResult>;
  /**
   * Completes a prompt's argument or a template's variable.
   *
   * @param ref - the prompt or template
   * @param argument - the argument's name and what is typed so far
   * @param context - the values of the other arguments
   * @param options - signal, timeout
   * @returns the values
   */
  complete(
    ref: CompletionReference,
    argument: { readonly name: string; readonly value: string },
    context?: Readonly<Record<string, string>>,
    options?: McpCallOptions,
  ): Promise<CompleteResult>;
  /**
   * Sets the least severe level of the log messages the server sends.
   *
   * @param level - the level
   * @param options - signal, timeout
   * @returns resolves once the server agreed
   */
  setLoggingLevel(level: LoggingLevel, options?: McpCallOptions): Promise<void>;
  /**
   * Pings the server.
   *
   * @param options - signal, timeout
   * @returns resolves when it answered
   */
  ping(options?: McpCallOptions): Promise<void>;
  /**
   * Tells the server the roots changed (`notifications/roots/list_changed`).
   *
   * @returns resolves once sent
   */
  rootsChanged(): Promise<void>;
  /**
   * Any request, for methods the client has no helper for.
   *
   * @param method - the method
   * @param params - its params
   * @param options - progress, signal, timeout, meta
   * @returns the result
   */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: McpCallOptions,
  ): Promise<T>;
  /** The kit client underneath. */
  readonly rpc: Client<McpProgress>;
  /**
   * Closes the client and its transport.
   *
   * @returns resolves once closed
   */
  close(): Promise<void>;
  /**
   * `close()`, for `await using`.
   *
   * @returns resolves once closed
   */
  [Symbol.asyncDispose](): Promise<void>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An accepted elicitation's content with the requested schema's defaults for the fields it left
 * out (SEP-1034).
 *
 * @param schema - the `requestedSchema` of `elicitation/create`
 * @param content - what the user gave
 * @returns the content with the defaults filled in
 * @example
 * ```ts
 * applyElicitationDefaults({ type: 'object', properties: { n: { type: 'integer', default: 3 } } }, {});
 * // { n: 3 }
 * ```
 */
export function applyElicitationDefaults(
  schema: Readonly<Record<string, unknown>> | undefined,
  content: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...content };
  const properties = schema?.properties;
  if (!isRecord(properties)) return out;
  for (const [name, property] of Object.entries(properties)) {
    if (out[name] === undefined && isRecord(property) && property.default !== undefined) {
      out[name] = property.default;
    }
  }
  return out;
}

function capabilitiesOf(options: McpClientOptions): ClientCapabilities {
  const handlers = options.handlers ?? {};
  const derived: Record<string, unknown> = {};
  if (handlers.sampling !== undefined) derived.sampling = {};
  if (handlers.elicitation !== undefined) {
    derived.elicitation = options.elicitationUrl === true ? { form: {}, url: {} } : { form: {} };
  }
  if (handlers.roots !== undefined) derived.roots = { listChanged: true };
  return { ...derived, ...options.capabilities };
}

function metaOf(params: JsonRpcParams | undefined): Readonly<Record<string, unknown>> | undefined {
  const meta = isRecord(params) ? params._meta : undefined;
  return isRecord(meta) ? meta : undefined;
}

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
  const handlers = options.handlers ?? {};
  const capabilities = capabilitiesOf(options);
  const accepted = options.protocolVersions ?? MCP_CLIENT_PROTOCOL_VERSIONS;
  const validate = options.validateOutput !== false;
  /** Output-schema validators of the tools listed, by name. */
  const outputSchemas = new Map<string, JsonSchemaObject>();
  const validators = new Map<string, Validator>();
  let initialized: InitializeResult | undefined;
  let connecting: Promise<InitializeResult> | undefined;

  /** Answers a server→client request (on the wire, or one of an `input_required` result). */
  const answer = async (
    method: string,
    rawParams: unknown,
    signal: AbortSignal,
  ): Promise<unknown> => {
    const params = (isRecord(rawParams) ? rawParams : {}) as Record<string, unknown>;
    const handlerContext: McpClientHandlerContext = {
      signal,
      meta: metaOf(params as JsonRpcParams),
    };
    switch (method) {
      case 'ping':
        return {};
      case 'sampling/createMessage':
        if (handlers.sampling === undefined) break;
        return handlers.sampling(params as CreateMessageParams, handlerContext);
      case 'elicitation/create': {
        if (handlers.elicitation === undefined) break;
        const elicit = params as ElicitParams;
        const result = await handlers.elicitation(elicit, handlerContext);
        if (
          result.action !== 'accept' ||
          options.applyElicitationDefaults === false ||
          elicit.mode === 'url'
        ) {
          return result;
        }
        return {
          ...result,
          content: applyElicitationDefaults(elicit.requestedSchema, result.content),
        };
      }
      case 'roots/list':
        if (handlers.roots === undefined) break;
        return { roots: await handlers.roots(handlerContext) };
    }
    throw new MethodNotFoundError(`Method not found: ${method}`);
  };

  const onRequest = (request: JsonRpcRequest, ctx: IncomingContext): Promise<unknown> =>
    answer(request.method, request.params, ctx.signal);

  const clientInfo: Implementation = {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title }),
  };
  /** The version in use: asked for until the server answers, then the one it chose. */
  let version = options.protocolVersion ?? DEFAULT_MCP_PROTOCOL_VERSION;
  const stateless = (): boolean => MCP_STATELESS_PROTOCOL_VERSIONS.includes(version);

  const follow = async <T>(kind: string, list: () => Promise<T[]>, to?: (items: T[]) => void) => {
    if (to === undefined) return;
    try {
      to(await list());
    } catch (error) {
      options.client?.onError?.(error instanceof Error ? error : new Error(String(error)), {
        kind: 'notification-failed',
        level: 'error',
        method: `notifications/${kind}/list_changed`,
      });
    }
  };

  const onNotification = (notification: { method: string; params?: JsonRpcParams }): void => {
    const { method, params } = notification;
    const changed = options.onListChanged;
    switch (method) {
      case 'notifications/tools/list_changed':
        void follow('tools', () => mcp.listAllTools(), changed?.tools);
        break;
      case 'notifications/resources/list_changed':
        void follow('resources', () => mcp.listAllResources(), changed?.resources);
        break;
      case 'notifications/prompts/list_changed':
        void follow('prompts', () => mcp.listAllPrompts(), changed?.prompts);
        break;
      case 'notifications/resources/updated':
        if (isRecord(params) && typeof params.uri === 'string')
          options.onResourceUpdated?.(params.uri);
        return;
      case 'notifications/message':
        if (isRecord(params)) options.onLog?.(params as unknown as LogMessage);
        return;
    }
    options.onNotification?.(method, params);
  };

  const rpc = createClient<McpProgress>(transport, {
    ...options.client,
    profile: mcpProfile,
    sendCancel: true,
    onRequest,
    onNotification,
  });

  // Stateless versions: every request carries the version, client info and capabilities.
  rpc.use((outgoing, next) => {
    if (outgoing.kind !== 'request' || !stateless()) return next();
    const params = outgoing.params;
    if (params !== undefined && !isRecord(params)) return next();
    outgoing.params = {
      ...params,
      _meta: {
        ...(isRecord(params?._meta) ? params._meta : {}),
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientInfo': clientInfo,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    };
    return next();
  });

  const call = async <T>(
    method: string,
    params: Record<string, unknown> | undefined,
    callOptions: McpCallOptions | undefined,
  ): Promise<T> => {
    let p = params;
    if (callOptions?.meta !== undefined) {
      p = { ...p, _meta: { ...(isRecord(p?._meta) ? p._meta : {}), ...callOptions.meta } };
    }
    const requestOptions = {
      signal: callOptions?.signal,
      timeout: callOptions?.timeout,
      onProgress: callOptions?.onProgress,
      resetTimeoutOnProgress: callOptions?.resetTimeoutOnProgress,
    };
    // MRTR (2026-07-28): an `input_required` result asks for answers (elicitation, sampling,
    // roots) the request is sent again with, with the server's `requestState` as it was given.
    for (let round = 0; ; round++) {
      const result = await rpc.request<T>(method, p as JsonRpcParams | undefined, requestOptions);
      if (!isRecord(result) || result.resultType !== 'input_required') return result;
      if (round >= MAX_INPUT_ROUNDS) {
        throw new ProtocolError(
          `${method}: more than ${MAX_INPUT_ROUNDS} input_required rounds`,
          result,
        );
      }
      const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
      const signal = callOptions?.signal ?? new AbortController().signal;
      const inputResponses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) {
        if (!isRecord(request) || typeof request.method !== 'string') continue;
        inputResponses[key] = await answer(request.method, request.params, signal);
      }
      const { inputResponses: _responses, requestState: _state, ...rest } = p ?? {};
      p = { ...rest, inputResponses };
      if (result.requestState !== undefined) p.requestState = result.requestState;
    }
  };

  const cursorParams = (cursor: string | undefined): Record<string, unknown> | undefined =>
    cursor === undefined ? undefined : { cursor };

  const all = async <K extends string, T>(
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

  /**
   * The stateless lifecycle's `server/discover`: a server that answers the version unsupported
   * names those it supports; the client moves to one it speaks and asks again, once.
   */
  const discover = async (): Promise<InitializeResult> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await rpc.request<Record<string, unknown>>('server/discover', {});
        const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
        if (supported.length > 0 && !supported.includes(version)) {
          const chosen = supported.find(
            (v): v is string => typeof v === 'string' && accepted.includes(v),
          );
          if (chosen === undefined) throw unsupported(supported);
          version = chosen;
        }
        // The revision puts the server's name and version in the result's `_meta`.
        const info = isRecord(result._meta) ? result._meta[SERVER_INFO_META] : undefined;
        const serverInfo = isRecord(info) ? info : result.serverInfo;
        return {
          protocolVersion: version,
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
            protocolVersion: version,
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
        version = chosen;
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

  const checkOutput = (name: string, result: CallToolResult<unknown>): void => {
    const schema = outputSchemas.get(name);
    if (!validate || schema === undefined || result.isError === true) return;
    if (result.structuredContent === undefined) {
      throw new ProtocolError(
        `tools/call ${name}: the tool has an output schema but the result has no structuredContent`,
        result,
      );
    }
    let validator = validators.get(name);
    if (validator === undefined) {
      validator = new Validator(schema as Record<string, never>, '2020-12', false);
      validators.set(name, validator);
    }
    const outcome = validator.validate(result.structuredContent);
    if (!outcome.valid) {
      const reasons = outcome.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join('; ');
      throw new ProtocolError(
        `tools/call ${name}: structuredContent breaks the output schema (${reasons})`,
        result,
      );
    }
  };

  const mcp: McpClient = {
    get server() {
      return initialized;
    },
    get serverCapabilities() {
      return initialized?.capabilities;
    },
    get protocolVersion() {
      return initialized === undefined ? undefined : version;
    },
    capabilities,
    rpc,
    connect() {
      connecting ??= (async () => {
        if (stateless()) {
          initialized = await discover();
          return initialized;
        }
        const result = await rpc.request<InitializeResult>('initialize', {
          protocolVersion: version,
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
        version = result.protocolVersion;
        initialized = {
          ...result,
          capabilities: isRecord(result.capabilities) ? result.capabilities : {},
        };
        await rpc.notify('notifications/initialized');
        return initialized;
      })();
      return connecting;
    },
    async listTools(cursor, callOptions) {
      const listed = await call<ListToolsResult>('tools/list', cursorParams(cursor), callOptions);
      // A tool with an invalid `x-mcp-header` must not be used (SEP-2243): it is left out.
      const tools = (listed.tools ?? []).filter((tool) => toolHeaderNames(tool) !== undefined);
      const result = tools.length === listed.tools?.length ? listed : { ...listed, tools };
      options.http?.observeTools(tools);
      for (const tool of tools) {
        validators.delete(tool.name);
        if (isRecord(tool.outputSchema)) outputSchemas.set(tool.name, tool.outputSchema);
        else outputSchemas.delete(tool.name);
      }
      return result;
    },
    listAllTools: (callOptions) =>
      all('tools/list', 'tools', (cursor) => mcp.listTools(cursor, callOptions)),
    async callTool<S>(
      name: string,
      args?: Readonly<Record<string, unknown>>,
      callOptions?: McpCallOptions,
    ): Promise<CallToolResult<S>> {
      const result = await call<CallToolResult<S>>(
        'tools/call',
        { name, arguments: args ?? {} },
        callOptions,
      );
      checkOutput(name, result as CallToolResult<unknown>);
      return result;
    },
    listResources: (cursor, callOptions) =>
      call('resources/list', cursorParams(cursor), callOptions),
    listAllResources: (callOptions) =>
      all('resources/list', 'resources', (cursor) => mcp.listResources(cursor, callOptions)),
    listResourceTemplates: (cursor, callOptions) =>
      call('resources/templates/list', cursorParams(cursor), callOptions),
    listAllResourceTemplates: (callOptions) =>
      all('resources/templates/list', 'resourceTemplates', (cursor) =>
        mcp.listResourceTemplates(cursor, callOptions),
      ),
    readResource: (uri, callOptions) => call('resources/read', { uri }, callOptions),
    async subscribeResource(uri, callOptions) {
      await call('resources/subscribe', { uri }, callOptions);
    },
    async unsubscribeResource(uri, callOptions) {
      await call('resources/unsubscribe', { uri }, callOptions);
    },
    listPrompts: (cursor, callOptions) => call('prompts/list', cursorParams(cursor), callOptions),
    listAllPrompts: (callOptions) =>
      all('prompts/list', 'prompts', (cursor) => mcp.listPrompts(cursor, callOptions)),
    getPrompt: (name, args, callOptions) =>
      call('prompts/get', args === undefined ? { name } : { name, arguments: args }, callOptions),
    complete: (ref, argument, completionContext, callOptions) =>
      call(
        'completion/complete',
        completionContext === undefined
          ? { ref, argument }
          : { ref, argument, context: { arguments: completionContext } },
        callOptions,
      ),
    async setLoggingLevel(level, callOptions) {
      await call('logging/setLevel', { level }, callOptions);
    },
    async ping(callOptions) {
      await call('ping', undefined, callOptions);
    },
    rootsChanged: () => rpc.notify('notifications/roots/list_changed'),
    request: (method, params, callOptions) =>
      call(method, params as Record<string, unknown> | undefined, callOptions),
    close: () => rpc.close(),
    [Symbol.asyncDispose]: () => rpc.close(),
  };
  return mcp;
}

/** A page whose items are under `K`. */
type ListPage<K extends string, T> = { readonly nextCursor?: string } & {
  readonly [key in K]?: readonly T[];
};
