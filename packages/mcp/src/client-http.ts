/**
 * The HTTP headers MCP's 2026-07-28 revision asks of a client (SEP-2243, SEP-2575): `Mcp-Method`,
 * `Mcp-Name`, `Mcp-Param-*` for a tool's `x-mcp-header` arguments, and `MCP-Protocol-Version` on
 * every POST; added by a `fetch` given to the Streamable HTTP client transport.
 *
 * @module
 */
import type { McpAuthProvider } from './auth/oauth-client.js';
import type { ToolInfo } from './client-types.js';
import { isRecord } from './records.js';

/** A `fetch`-compatible function (the Streamable HTTP transport's `fetch` option). */
export type McpFetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A `fetch` that adds MCP's headers to each POST; give it to `createMcpClient` as `http` too. */
export interface McpFetch extends McpFetchLike {
  /**
   * Learns the tools' `x-mcp-header` arguments (`createMcpClient` calls it after each
   * `tools/list`).
   *
   * @param tools - the tools listed
   */
  observeTools(tools: readonly ToolInfo[]): void;
}

/** Options of {@link createMcpFetch}. */
export interface McpFetchOptions {
  /**
   * The `fetch` underneath.
   *
   * @default globalThis.fetch
   */
  readonly fetch?: McpFetchLike;
  /**
   * Authorization: its `Authorization` header goes with every request, and a 401 (or a 403
   * `insufficient_scope`) runs its flow and sends the request again (`createOAuthClient`).
   */
  readonly auth?: McpAuthProvider;
}

/** The most times one request is sent again after its authorization flow. */
const MAX_AUTH_RETRIES = 4;

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** An HTTP token (RFC 9110): visible ASCII but separators. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The `x-mcp-header` names of a tool's top-level arguments, by argument, or `undefined` when one
 * is invalid (empty, not a token, on a property that is not a string, integer or boolean, or
 * twice, ignoring case): such a tool must not be used (SEP-2243).
 *
 * @param tool - the tool as listed
 * @returns the header name of each annotated argument, or `undefined` for an invalid tool
 * @example
 * ```ts
 * toolHeaderNames({ name: 't', inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'Region' } } } });
 * // Map { 'r' => 'Region' }
 * ```
 */
export function toolHeaderNames(tool: ToolInfo): Map<string, string> | undefined {
  const out = new Map<string, string>();
  const properties = isRecord(tool.inputSchema) ? tool.inputSchema.properties : undefined;
  if (!isRecord(properties)) return out;
  const seen = new Set<string>();
  for (const [argument, schema] of Object.entries(properties)) {
    if (!isRecord(schema) || !('x-mcp-header' in schema)) continue;
    const name = schema['x-mcp-header'];
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) return undefined;
    const type = schema.type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean') return undefined;
    const key = name.toLowerCase();
    if (seen.has(key)) return undefined;
    seen.add(key);
    out.set(argument, name);
  }
  return out;
}

/**
 * A header value for an argument: numbers and booleans as text, strings as they are when they
 * are visible ASCII without surrounding white space, else `=?base64?…?=` of their UTF-8.
 *
 * @param value - the argument's value
 * @returns the header value, or `undefined` for null or absent
 * @example
 * ```ts
 * headerValue(' padded '); // '=?base64?IHBhZGRlZCA=?='
 * ```
 */
export function headerValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  let plain = text === text.trim();
  for (let i = 0; plain && i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) plain = false;
  }
  if (plain) return text;
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * Creates a `fetch` that adds MCP's per-request headers to each POST it carries: `Mcp-Method`
 * (the method), `Mcp-Name` (a `tools/call` or `prompts/get` name, a `resources/read` URI),
 * `Mcp-Param-<Name>` for each argument a tool marks with `x-mcp-header`, and
 * `MCP-Protocol-Version` once a request carried the protocol version in its `_meta` (the 2026
 * stateless lifecycle). Give it to `createStreamableHttpTransport({ fetch })` and to
 * `createMcpClient({ http })`.
 *
 * @param options - the `fetch` underneath
 * @returns the `fetch`
 * @throws TypeError when no `fetch` is given and the runtime has none
 * @example
 * ```ts
 * const http = createMcpFetch();
 * const mcp = createMcpClient(createStreamableHttpTransport({ url, fetch: http }), { name: 'host', version: '1', http });
 * ```
 */
export function createMcpFetch(options: McpFetchOptions = {}): McpFetch {
  const inner = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof inner !== 'function') {
    throw new TypeError('createMcpFetch: no fetch in this runtime; pass options.fetch');
  }
  const headerNames = new Map<string, Map<string, string>>();
  let protocolVersion: string | undefined;
  const auth = options.auth;

  /** Sends with the provider's token; runs its flow on a 401 or 403 and sends again. */
  const send = async (input: string, init: RequestInit): Promise<Response> => {
    if (auth === undefined) return inner(input, init);
    for (let retry = 0; ; retry++) {
      let response: Response;
      let authorization: string | undefined;
      if (auth.send !== undefined) {
        // The provider binds its token to each request (DPoP) and sets the headers itself.
        response = await auth.send(input, init, inner);
        authorization = 'sent';
      } else {
        const headers = new Headers(init.headers);
        authorization = await auth.authorization(input);
        if (authorization !== undefined) headers.set('authorization', authorization);
        response = await inner(input, { ...init, headers });
      }
      if (response.status !== 401 && response.status !== 403) {
        if (authorization !== undefined && response.ok) auth.authorized?.(input);
        return response;
      }
      if (retry >= MAX_AUTH_RETRIES || !(await auth.unauthorized(input, response))) return response;
      await response.body?.cancel();
    }
  };

  const mcpFetch = ((input: string, init: RequestInit): Promise<Response> => {
    if (init.method !== 'POST' || typeof init.body !== 'string') return send(input, init);
    let message: unknown;
    try {
      message = JSON.parse(init.body);
    } catch {
      return send(input, init);
    }
    if (!isRecord(message) || typeof message.method !== 'string') {
      if (protocolVersion === undefined) return send(input, init);
      const headers = new Headers(init.headers);
      headers.set('mcp-protocol-version', protocolVersion);
      return send(input, { ...init, headers });
    }
    const headers = new Headers(init.headers);
    const method = message.method;
    const params = isRecord(message.params) ? message.params : {};
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const version = meta?.[PROTOCOL_VERSION_META];
    if (typeof version === 'string') protocolVersion = version;
    if (protocolVersion !== undefined) headers.set('mcp-protocol-version', protocolVersion);
    headers.set('mcp-method', method);
    const name =
      method === 'resources/read'
        ? params.uri
        : method === 'tools/call' || method === 'prompts/get'
          ? params.name
          : undefined;
    if (typeof name === 'string') headers.set('mcp-name', name);
    if (method === 'tools/call' && typeof name === 'string' && isRecord(params.arguments)) {
      for (const [argument, header] of headerNames.get(name) ?? []) {
        const value = headerValue(params.arguments[argument]);
        if (value !== undefined) headers.set(`mcp-param-${header}`, value);
      }
    }
    return send(input, { ...init, headers });
  }) as McpFetch;
  mcpFetch.observeTools = (tools) => {
    for (const tool of tools) {
      const names = toolHeaderNames(tool);
      if (names === undefined || names.size === 0) headerNames.delete(tool.name);
      else headerNames.set(tool.name, names);
    }
  };
  return mcpFetch;
}
