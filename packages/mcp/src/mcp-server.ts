/**
 * `createMcpServer()`: MCP's server methods on a kit server. Each connection (a stdio pipe, a
 * WebSocket, a Streamable HTTP session) is one client, with its own `initialize`, logging level
 * and subscriptions; tools, resources and prompts are shared by all. The methods are registered
 * by group (`server-lifecycle.ts`, `server-tools.ts`, `server-resources.ts`, `server-prompts.ts`,
 * `server-completions.ts`) on the state made here (`server-core.ts`); the public shapes are in
 * `server-api.ts`.
 *
 * @module
 */
import { InvalidParamsError, MethodNotFoundError, mcpProfile } from '@jsonrpc-kit/core';
import { asyncDisposeSymbol } from '@jsonrpc-kit/core/engine';
import { type Connection, createServer, type HandlerContext } from '@jsonrpc-kit/server';
import { sharedClientState } from './client-store.js';
import {
  CallContext,
  type ClientState,
  clientStateOf,
  existingClientState,
  statelessClientState,
} from './context.js';
import { ListenHub } from './listen.js';
import { createRequestStateSeal, InputRounds } from './mrtr.js';
import { defined, isRecord } from './records.js';
import {
  DEFAULT_PAGE_SIZE,
  MCP_SERVER_PROTOCOL_VERSIONS,
  type McpServer,
  type McpServerOptions,
  serverStates,
} from './server-api.js';
import { registerCompletions } from './server-completions.js';
import {
  decodeCursor,
  encodeCursor,
  type ListKind,
  type McpServerCore,
  type PromptEntry,
  paramsOf,
  type ResourceEntry,
  type TemplateEntry,
  TOOL_NAME,
  type ToolEntry,
} from './server-core.js';
import { registerLifecycle } from './server-lifecycle.js';
import { registerPrompts } from './server-prompts.js';
import { registerResources } from './server-resources.js';
import { registerTools } from './server-tools.js';
import {
  CACHEABLE_METHODS,
  MCP_STATELESS_PROTOCOL_VERSIONS,
  META_SERVER_INFO,
  REMOVED_METHODS,
  statelessMetaOf,
} from './stateless.js';
import { TASKS_EXTENSION_ID, TaskManager, type TaskStarter } from './tasks/tasks.js';
import { parseUriTemplate } from './uri-template.js';

export {
  DEFAULT_PAGE_SIZE,
  INSUFFICIENT_SCOPE,
  MAX_COMPLETION_VALUES,
  MCP_PUSH_METHODS,
  MCP_SERVER_PROTOCOL_VERSIONS,
  type McpServer,
  type McpServerOptions,
  type McpServerState,
  RESOURCE_NOT_FOUND,
  stateOf,
} from './server-api.js';

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
  const listeners = new ListenHub();
  const taskManager = new TaskManager(options.tasks);
  const servesTasks = (): boolean =>
    [...tools.values()].some((t) => t.definition.taskSupport !== undefined);

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
        for (const k of kinds) listeners.listChanged(k);
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
  const clients = options.clients;
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
    if (servesTasks()) capabilities.extensions = { [TASKS_EXTENSION_ID]: {} };
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
      if (statelessMetaOf(raw, statelessVersions) === undefined) {
        if (clients !== undefined) await sharedClientState(ctx, clients);
        return handler(raw, ctx);
      }
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
    task?: TaskStarter,
  ): Promise<unknown> => {
    const client = clientOf(ctx, raw);
    if (!client.stateless) return run(new CallContext(ctx, client, raw, undefined, task));
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
    const done = run(new CallContext(ctx, client, raw, rounds, task));
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

  const core: McpServerCore = {
    options,
    server,
    versions,
    statelessVersions,
    clients,
    serverInfo,
    tools,
    resources,
    templates,
    prompts,
    page,
    listed,
    clientOf,
    capabilitiesNow,
    method,
    withInput,
    taskManager,
  };
  registerLifecycle(core);
  const listTool = registerTools(core);
  registerResources(core);
  registerPrompts(core);
  registerCompletions(core);

  // 2026-07-28: the stream of notifications that replaces the session's (SEP-2575).
  method('subscriptions/listen', (raw, ctx) => {
    if (!clientOf(ctx, raw).stateless) {
      throw new MethodNotFoundError('Method not found: subscriptions/listen');
    }
    return listeners.serve(paramsOf(raw), ctx, capabilitiesNow());
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
      listeners.resourceUpdated(uri);
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
    close: async () => {
      await listeners.end();
      await taskManager.close();
      await server.close();
    },
    [asyncDisposeSymbol]: () => mcp.close(),
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
