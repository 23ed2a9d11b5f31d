/**
 * The checks of a stateless MCP request before it runs: whether it is one, the DNS-rebinding
 * guard, `authenticate`, and its headers against its body (`Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-*`, `MCP-Protocol-Version`, `_meta`); and the JSON-RPC error answers they give.
 *
 * @module
 */
import type { TransportContext } from '@jsonrpc-kit/core';
import type { Answer, Incoming, McpHttpOptions } from './http-api.js';
import { type McpServer, stateOf } from './mcp-server.js';
import { isRecord } from './records.js';
import {
  HEADER_MISMATCH,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  metaOf,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './stateless.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return name.toLowerCase();
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * A JSON-RPC error answer's body.
 *
 * @param id - the request's id (`null` when unknown)
 * @param code - the error code
 * @param message - the message
 * @param data - the error's data
 * @returns the JSON text
 */
export function errorBody(id: unknown, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}

/**
 * The HTTP status of a JSON-RPC error answer to a stateless request.
 *
 * @param code - the error code
 * @returns the status
 */
export function statusOf(code: number): number {
  if (code === -32601) return 404;
  if (code === -32700 || code === -32600 || code === -32602) return 400;
  if (code === HEADER_MISMATCH || code === -32021 || code === UNSUPPORTED_PROTOCOL_VERSION) {
    return 400;
  }
  return 200;
}

/** The body field `Mcp-Name` mirrors, for the methods that have one. */
function nameOf(method: string, params: Record<string, unknown>): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params.name;
  if (method === 'resources/read') return params.uri;
  if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel') {
    return params.taskId;
  }
  return undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes an `Mcp-Param-*` value: `=?base64?…?=` is Base64 of UTF-8, anything else literal. */
function decodeParam(value: string): string | undefined {
  const match = /^=\?base64\?(.*)\?=$/.exec(value);
  if (match === null) return value;
  const encoded = match[1]!;
  if (!BASE64.test(encoded)) return undefined;
  try {
    const binary = atob(encoded);
    return new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(binary, (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}

/**
 * Whether a request is for the stateless path: a POST naming a stateless revision (or one this
 * server does not know) in `MCP-Protocol-Version`, without a session.
 *
 * @param mcp - the MCP server
 * @param method - the HTTP method
 * @param header - reads the request's headers
 * @returns whether it is
 */
export function isStateless(mcp: McpServer, method: string, header: Incoming['header']): boolean {
  if (method !== 'POST' || header('mcp-session-id') !== undefined) return false;
  const version = header('mcp-protocol-version');
  return version !== undefined && !stateOf(mcp).sessionVersions.includes(version);
}

/**
 * Checks a stateless request against its headers and `_meta`.
 *
 * @param mcp - the MCP server
 * @param message - the request
 * @param incoming - the HTTP request it came in
 * @returns the error answer, or `undefined` when it may run
 */
export async function refusal(
  mcp: McpServer,
  message: Record<string, unknown>,
  incoming: Incoming,
): Promise<Answer | undefined> {
  const id = message.id;
  const method = message.method as string;
  const params = isRecord(message.params) ? message.params : {};
  const refuse = (code: number, text: string, data?: unknown): Answer => ({
    kind: 'json',
    status: statusOf(code),
    body: errorBody(id, code, text, data),
  });
  const header = (name: string) => incoming.header(name)?.trim();
  const meta = metaOf(params);
  const missing = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES].filter(
    (key) => meta?.[key] === undefined,
  );
  if (missing.length > 0) {
    return refuse(-32602, `Invalid params: _meta is missing ${missing.join(', ')}`, { missing });
  }
  const version = meta![META_PROTOCOL_VERSION];
  if (version !== header('mcp-protocol-version')) {
    return refuse(HEADER_MISMATCH, 'MCP-Protocol-Version header does not match the body');
  }
  const state = stateOf(mcp);
  if (typeof version !== 'string' || !state.statelessVersions.includes(version)) {
    return refuse(UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', {
      supported: [...state.statelessVersions],
      requested: String(version),
    });
  }
  if (header('mcp-method') !== method) {
    return refuse(HEADER_MISMATCH, 'Mcp-Method header does not match the body');
  }
  const name = nameOf(method, params);
  if (name !== undefined && header('mcp-name') !== String(name)) {
    return refuse(HEADER_MISMATCH, 'Mcp-Name header does not match the body');
  }
  if (method === 'tools/call' && typeof params.name === 'string') {
    const headers = await state.toolHeaders(params.name);
    const args = isRecord(params.arguments) ? params.arguments : {};
    for (const [property, suffix] of headers) {
      const value = args[property];
      const given = incoming.header(`mcp-param-${suffix.toLowerCase()}`);
      if (value === undefined || value === null) continue;
      if (given === undefined) {
        return refuse(HEADER_MISMATCH, `Mcp-Param-${suffix} header is missing`);
      }
      const decoded = decodeParam(given.trim());
      if (decoded === undefined) {
        return refuse(HEADER_MISMATCH, `Mcp-Param-${suffix} header is not valid Base64`);
      }
      if (decoded !== (typeof value === 'string' ? value : JSON.stringify(value))) {
        return refuse(HEADER_MISMATCH, `Mcp-Param-${suffix} header does not match the body`);
      }
    }
  }
  return undefined;
}

/** What `HttpError` of `@jsonrpc-kit/transport-http` carries (read without importing it). */
interface HttpErrorLike {
  readonly status: number;
  readonly code?: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const HTTP_ERROR = Symbol.for('@jsonrpc-kit/transport-http/HttpError');

const isHttpError = (value: unknown): value is HttpErrorLike =>
  typeof value === 'object' &&
  value !== null &&
  (value as Record<symbol, unknown>)[HTTP_ERROR] === true;

/**
 * Runs `authenticate`: the principal, or the refusal to answer with.
 *
 * @param options - the endpoint's options
 * @param incoming - the HTTP request
 * @returns the principal, or the answer
 */
export async function admit(
  options: McpHttpOptions,
  incoming: Incoming,
): Promise<{ readonly auth: unknown } | Answer> {
  if (options.authenticate === undefined) return { auth: undefined };
  const context: TransportContext = {
    kind: 'http',
    headers: incoming.headers,
    httpMethod: 'POST',
    ...(incoming.signal === undefined ? {} : { signal: incoming.signal }),
  };
  let refusal: unknown;
  try {
    const auth = await options.authenticate(context);
    if (!isHttpError(auth)) return { auth };
    refusal = auth;
  } catch (error) {
    refusal = error;
  }
  if (!isHttpError(refusal)) {
    return { kind: 'json', status: 401, body: errorBody(null, -32000, 'Unauthorized') };
  }
  return {
    kind: 'json',
    status: refusal.status,
    body: errorBody(null, refusal.code ?? -32000, refusal.message),
    ...(refusal.headers === undefined ? {} : { headers: refusal.headers }),
  };
}

/**
 * The DNS-rebinding guard: a request that arrived on a loopback address must name a loopback
 * host in `Host` and `Origin`.
 *
 * @param incoming - the HTTP request
 * @param options - the endpoint's options
 * @returns the refusal, or `undefined` when it may go on
 */
export function guard(incoming: Incoming, options: McpHttpOptions): Answer | undefined {
  if (options.dnsRebindingProtection === false || !isLoopback(incoming.localAddress)) return;
  const host = incoming.header('host');
  const origin = incoming.header('origin');
  let originHost: string | undefined;
  try {
    originHost = origin === undefined ? undefined : new URL(origin).hostname.toLowerCase();
  } catch {
    originHost = '';
  }
  if (
    host === undefined ||
    !LOOPBACK_HOSTS.has(hostName(host)) ||
    (originHost !== undefined && !LOOPBACK_HOSTS.has(originHost))
  ) {
    return {
      kind: 'json',
      status: 403,
      body: errorBody(null, -32000, 'Forbidden: Host not allowed'),
    };
  }
  return undefined;
}
