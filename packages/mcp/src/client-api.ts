/**
 * The public shapes of the MCP client: the protocol versions it speaks, its limits, its options,
 * the handlers of the server's requests, and the {@link McpClient} that `createMcpClient` returns.
 *
 * @module
 */
import type { Client, ClientOptions } from '@jsonrpc-kit/client';
import type { JsonRpcParams, McpProgress } from '@jsonrpc-kit/core';
import type { McpFetch } from './client-http.js';
import type {
  CompleteResult,
  CompletionReference,
  InitializeResult,
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
