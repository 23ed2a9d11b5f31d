/**
 * MCP authorization as a resource server: bearer tokens checked on each request, a 401 with
 * `WWW-Authenticate` pointing at the protected-resource metadata (RFC 9728), that document, and
 * a 403 `insufficient_scope` for a tool call whose token lacks the tool's scopes.
 *
 * @module
 */
import type { TransportContext } from '@jsonrpc-kit/core';
import { HttpError } from '@jsonrpc-kit/transport-http';
import { type McpServer, stateOf } from '../mcp-server.js';

/** Who a token speaks for, as the verifier found it. */
export interface AuthInfo {
  /** The token's scopes. */
  readonly scopes: readonly string[];
  /** The token's subject (the user). */
  readonly subject?: string;
  /** The client it was issued to. */
  readonly clientId?: string;
  /** The audience (resource) it was issued for; checked against the server's resource. */
  readonly audience?: string | readonly string[];
  /** When it expires, in seconds since the epoch; a token past it is refused. */
  readonly expiresAt?: number;
  /** Anything else the verifier read (JWT claims, the introspection answer). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** Options of {@link createProtectedResource}. */
export interface ProtectedResourceOptions {
  /** The MCP server's URL, its resource identifier (`https://api.example.com/mcp`). */
  readonly resource: string;
  /** The issuers of the authorization servers that issue tokens for it. */
  readonly authorizationServers: readonly string[];
  /**
   * Checks a bearer token: its `AuthInfo`, or `undefined` when it is not valid (verify a JWT
   * against the issuer's JWKS, for instance with `jose`, or ask the authorization server's
   * introspection endpoint).
   */
  readonly verify: (token: string) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** Scopes every request needs; a token without them gets 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[];
  /**
   * The scopes each tool needs, by tool name: a `tools/call` of the tool with a token without them
   * gets 403 `insufficient_scope`, its `WWW-Authenticate` naming the scopes to ask for. Checked by
   * {@link ProtectedResource.fetchHandler} (it reads the request's body).
   */
  readonly toolScopes?: Readonly<Record<string, readonly string[]>>;
  /**
   * The MCP server whose tools declare their `scopes` (`mcp.tool(name, { scopes }, handler)`):
   * checked by {@link ProtectedResource.fetchHandler} as `toolScopes` are (both apply).
   */
  readonly mcp?: McpServer;
  /** The scopes to advertise (`scopes_supported`). @default requiredScopes and the tools' scopes */
  readonly scopesSupported?: readonly string[];
  /** A human-readable name (`resource_name`). */
  readonly resourceName?: string;
  /**
   * Check the token's audience against `resource` (RFC 8707). A verifier that checks it itself
   * may turn this off.
   *
   * @default true
   */
  readonly checkAudience?: boolean;
}

/** A protected MCP server's authorization pieces; see {@link createProtectedResource}. */
export interface ProtectedResource {
  /** The protected-resource metadata document (RFC 9728). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Where it is served: `/.well-known/oauth-protected-resource` and the resource's path. */
  readonly metadataPath: string;
  /** Its absolute URL, sent in `WWW-Authenticate` as `resource_metadata`. */
  readonly metadataUrl: string;
  /**
   * The `authenticate` option of the Streamable HTTP handlers: reads the bearer token, verifies
   * it, and resolves to its {@link AuthInfo} (the handler's `ctx.transport.auth`); refuses with
   * 401 and `WWW-Authenticate` (no token, an invalid or expired one, the wrong audience) or 403
   * `insufficient_scope`.
   *
   * @param context - the request's transport context (its headers)
   * @returns the token's principal
   * @throws HttpError 401 or 403
   */
  authenticate(context: TransportContext): Promise<AuthInfo>;
  /**
   * Answers a request for the metadata document (a fetch `Request`), or `undefined` for any other
   * path.
   *
   * @param request - the request
   * @returns the answer, or `undefined`
   */
  metadataResponse(request: Request): Response | undefined;
  /**
   * Wraps the MCP endpoint of a fetch-style server (`createMcpFetchHandler`, or the kit's
   * Streamable HTTP fetch handler, itself given `authenticate`): answers the metadata document,
   * and refuses a `tools/call` of a tool whose `toolScopes` the token lacks with 403
   * `insufficient_scope` (and a request without a valid token with 401) before the handler sees
   * it; everything else goes to `handler`.
   *
   * @param handler - the MCP endpoint
   * @returns the wrapped handler
   */
  fetchHandler(
    handler: (request: Request) => Response | Promise<Response>,
  ): (request: Request) => Promise<Response>;
  /**
   * {@link ProtectedResource.fetchHandler} for node:http: wraps `createMcpNodeHandler(mcp, legacy,
   * { authenticate })` or the kit's `createStreamableHttpNodeHandler` (given `authenticate`). It
   * reads a POST's body (at most 4 MiB) to check the tools' scopes, then hands the request on with
   * the body as a body parser leaves it (`req.body`), which both handlers take.
   *
   * @param handler - the MCP endpoint
   * @returns the wrapped `(req, res)` handler
   */
  nodeHandler<Req extends ProtectedNodeRequest, Res extends ProtectedNodeResponse>(
    handler: (req: Req, res: Res) => void,
  ): (req: Req, res: Res) => void;
}

/** The parts of a node:http `IncomingMessage` {@link ProtectedResource.nodeHandler} uses. */
export interface ProtectedNodeRequest {
  /** The HTTP method. */
  readonly method?: string | undefined;
  /** The path and query. */
  readonly url?: string | undefined;
  /** The headers, names in lower case. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Whether the body was read already. */
  readonly readableEnded?: boolean;
  /** The body, set once read. */
  body?: unknown;
  /** Adds a listener of the body's chunks. */
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** Adds a listener of the body's end. */
  once(event: 'end', listener: () => void): unknown;
}

/** The parts of a node:http `ServerResponse` {@link ProtectedResource.nodeHandler} uses. */
export interface ProtectedNodeResponse {
  /** Writes the head. */
  writeHead(status: number, headers?: Record<string, string>): unknown;
  /** Ends the answer. */
  end(body?: string): unknown;
}

/** The most bytes of a POST body `nodeHandler` reads to check the tools' scopes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const header = (context: TransportContext, name: string): string | undefined => {
  const value = context.headers?.[name];
  return typeof value === 'string' ? value : value?.[0];
};

const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`;

/**
 * Creates what a protected MCP server needs: give `authenticate` to the Streamable HTTP handler
 * (`createStreamableHttpNodeHandler(mcp.server, { authenticate })`, or the fetch handler), and
 * serve `metadata` at `metadataPath` (or answer with `metadataResponse`). A request without a
 * valid token gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (and the scope it
 * needs), which is where an MCP client starts its authorization.
 *
 * @param options - the resource, its authorization servers, the token verifier, scopes
 * @returns the pieces
 * @throws TypeError when `resource` is not an absolute http(s) URL, or `mcp` is not a server of
 *   `createMcpServer`
 * @example
 * ```ts
 * const protect = createProtectedResource({
 *   resource: 'https://api.example.com/mcp',
 *   authorizationServers: ['https://auth.example.com'],
 *   verify: async (token) => introspect(token),
 * });
 * const handler = createStreamableHttpNodeHandler(mcp.server, { authenticate: protect.authenticate });
 * ```
 */
export function createProtectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const resource = new URL(options.resource);
  if (resource.protocol !== 'https:' && resource.protocol !== 'http:') {
    throw new TypeError(
      `createProtectedResource: resource must be an http(s) URL, got ${options.resource}`,
    );
  }
  resource.hash = '';
  const path = resource.pathname.replace(/\/$/, '');
  const metadataPath = `/.well-known/oauth-protected-resource${path}`;
  const metadataUrl = `${resource.origin}${metadataPath}`;
  const required = options.requiredScopes ?? [];
  const toolScopes = options.toolScopes ?? {};
  const supported = options.scopesSupported ?? [
    ...new Set([...required, ...Object.values(toolScopes).flat()]),
  ];
  const metadata: Record<string, unknown> = {
    resource: resource.href,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ['header'],
    ...(supported.length > 0 ? { scopes_supported: [...supported] } : {}),
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
  };
  const body = JSON.stringify(metadata);

  const challenge = (error?: string, description?: string, scopes = required): string => {
    let value = `Bearer resource_metadata=${quoted(metadataUrl)}`;
    if (scopes.length > 0) value += `, scope=${quoted(scopes.join(' '))}`;
    if (error !== undefined) value += `, error=${quoted(error)}`;
    if (description !== undefined) value += `, error_description=${quoted(description)}`;
    return value;
  };
  const refuse = (status: 401 | 403, error?: string, description?: string): HttpError =>
    new HttpError(status, description ?? 'Unauthorized', {
      headers: { 'www-authenticate': challenge(error, description) },
    });

  const audienceMatches = (audience: string | readonly string[] | undefined): boolean => {
    if (audience === undefined) return true;
    const list = typeof audience === 'string' ? [audience] : audience;
    const canonical = resource.href.replace(/\/$/, '');
    return list.some((a) => a.replace(/\/$/, '') === canonical);
  };

  /** The tools a POST body calls (one message or a batch). */
  const calledTools = (text: string): string[] => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return [];
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const names: string[] = [];
    for (const message of messages) {
      if (typeof message !== 'object' || message === null) continue;
      const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
      if (method === 'tools/call' && typeof params?.name === 'string') names.push(params.name);
    }
    return names;
  };

  const errorText = (code: number, message: string): string =>
    JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  const refusal = (error: HttpError): Response =>
    new Response(errorText(error.code, error.message), {
      status: error.status,
      headers: { 'content-type': 'application/json', ...error.headers },
    });

  const declared = options.mcp === undefined ? undefined : stateOf(options.mcp);
  /** Whether any tool needs scopes of its own (else the wrappers pass every request on). */
  const scoped = Object.keys(toolScopes).length > 0 || declared !== undefined;

  /**
   * The refusal of a POST body calling a tool whose scopes the token lacks (401 without a valid
   * token, 403 `insufficient_scope`), or `undefined` to let it through.
   */
  const toolRefusal = async (
    text: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<HttpError | undefined> => {
    const needed = [
      ...new Set(
        calledTools(text).flatMap((name) => [
          ...(Object.hasOwn(toolScopes, name) ? (toolScopes[name] ?? []) : []),
          ...(declared?.toolScopes(name) ?? []),
        ]),
      ),
    ];
    if (needed.length === 0) return undefined;
    let info: AuthInfo;
    try {
      info = await protect.authenticate({ kind: 'http', headers });
    } catch (error) {
      if (error instanceof HttpError) return error;
      throw error;
    }
    const missing = needed.filter((scope) => !info.scopes.includes(scope));
    if (missing.length === 0) return undefined;
    // Ask for what the token has and what the tool needs (the client's step-up).
    const scopes = [...new Set([...info.scopes, ...required, ...needed])];
    const description = `the token lacks ${missing.join(' ')}`;
    return new HttpError(403, description, {
      headers: { 'www-authenticate': challenge('insufficient_scope', description, scopes) },
    });
  };

  const protect: ProtectedResource = {
    metadata,
    metadataPath,
    metadataUrl,
    async authenticate(context) {
      const authorization = header(context, 'authorization');
      const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match === null) throw refuse(401);
      let info: AuthInfo | undefined;
      try {
        info = await options.verify(match[1]!);
      } catch (error) {
        throw new HttpError(401, 'Unauthorized', {
          cause: error,
          headers: {
            'www-authenticate': challenge('invalid_token', 'the token could not be verified'),
          },
        });
      }
      if (info === undefined) throw refuse(401, 'invalid_token', 'the token is not valid');
      if (info.expiresAt !== undefined && info.expiresAt * 1000 <= Date.now()) {
        throw refuse(401, 'invalid_token', 'the token has expired');
      }
      if (options.checkAudience !== false && !audienceMatches(info.audience)) {
        throw refuse(401, 'invalid_token', 'the token is for another resource');
      }
      const missing = required.filter((scope) => !info.scopes.includes(scope));
      if (missing.length > 0) {
        throw refuse(403, 'insufficient_scope', `the token lacks ${missing.join(' ')}`);
      }
      return info;
    },
    metadataResponse(request) {
      const url = new URL(request.url);
      if (url.pathname !== metadataPath) return undefined;
      return new Response(body, {
        status: 200,
        headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
      });
    },
    fetchHandler(handler) {
      return async (request) => {
        const document = protect.metadataResponse(request);
        if (document !== undefined) return document;
        if (request.method !== 'POST' || !scoped) return handler(request);
        const refused = await toolRefusal(
          await request.clone().text(),
          Object.fromEntries(request.headers),
        );
        return refused === undefined ? handler(request) : refusal(refused);
      };
    },
    nodeHandler(handler) {
      return (req, res) => {
        const answer = (status: number, text: string, headers: Record<string, string>): void => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(text);
        };
        if (req.method === 'GET' && new URL(req.url ?? '/', resource).pathname === metadataPath) {
          answer(200, body, { 'access-control-allow-origin': '*' });
          return;
        }
        if (req.method !== 'POST' || !scoped || req.readableEnded === true) {
          handler(req, res);
          return;
        }
        const chunks: Uint8Array[] = [];
        let size = 0;
        req.on('data', (chunk) => {
          size += chunk.byteLength;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        req.once('end', () => {
          if (size > MAX_BODY_BYTES) {
            answer(413, errorText(-32600, 'Request too large'), {});
            return;
          }
          const bytes = new Uint8Array(size);
          let offset = 0;
          for (const chunk of chunks) {
            bytes.set(chunk, offset);
            offset += chunk.byteLength;
          }
          const text = new TextDecoder().decode(bytes);
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(req.headers)) {
            if (value !== undefined)
              headers[name] = typeof value === 'string' ? value : value.join(', ');
          }
          toolRefusal(text, headers).then(
            (refused) => {
              if (refused !== undefined) {
                answer(refused.status, errorText(refused.code, refused.message), {
                  ...refused.headers,
                });
                return;
              }
              // The handler takes the body as a body parser leaves it.
              req.body = text;
              handler(req, res);
            },
            () => answer(500, errorText(-32603, 'Internal error'), {}),
          );
        });
      };
    },
  };
  return protect;
}
