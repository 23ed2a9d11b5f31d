/**
 * The checks every HTTP request passes before its body is read, written once for the node:http
 * handler, the fetch handler and the streaming handler: method, CORS preflight, Origin and Host
 * (DNS-rebinding protection), content type and declared length.
 *
 * @module
 */
import { serializeError } from '@jsonrpc-kit/core';
import { isJsonContentType } from './content-type.js';
import type { ResolvedHandlerOptions } from './resolve-options.js';
import { METHOD_NOT_ALLOWED_BODY, UNSUPPORTED_MEDIA_TYPE_BODY } from './resolve-options.js';

/** Reads one request header (lower-case name); `undefined` when absent. */
export type HeaderReader = (name: string) => string | undefined;

/** What the policy decided about a request before its body. */
export type PolicyDecision =
  | { readonly kind: 'proceed'; readonly cors: readonly string[] }
  | {
      readonly kind: 'answer';
      readonly status: number;
      /** JSON body, or `undefined` for none. */
      readonly body: string | undefined;
      /** Flat name/value list, CORS included. */
      readonly headers: readonly string[];
      /** The body, if any, should be drained before closing (an early answer). */
      readonly early: boolean;
    };

const none: readonly string[] = [];
/** The decision of most requests (no CORS headers to add), made once. */
const PROCEED: PolicyDecision = { kind: 'proceed', cors: none };

/** The methods of the plain JSON-RPC handlers. */
export const POST_ONLY: ReadonlySet<string> = new Set(['POST']);

/** 403: a refused Origin or Host. */
export function forbiddenBody(message: string): string {
  return serializeError(null, { code: -32000, message });
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * The host name of a `Host` header or an origin's authority, without the port, lower-case.
 *
 * @param host - `example.com:8080`, `[::1]:80`
 * @returns the name
 */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * Whether an address is a loopback one (`127.x`, `::1`, `::ffff:127.x`).
 *
 * @param address - an IP address
 * @returns whether it is loopback
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** DNS-rebinding protection, resolved. */
export interface OriginGuard {
  /**
   * Checks `Host` and `Origin` of a request that arrived on `localAddress`.
   *
   * @returns a refusal message, or `undefined` to accept
   */
  check(
    host: string | undefined,
    origin: string | undefined,
    localAddress: string | undefined,
  ): string | undefined;
}

/** Options of the DNS-rebinding protection. */
export interface OriginGuardOptions {
  /**
   * Origins (`scheme://host:port`) allowed to call, besides those CORS allows; a function decides
   * itself. When set, every request with an `Origin` header is checked, whatever the bind address.
   */
  readonly allowedOrigins?: readonly string[] | ((origin: string) => boolean);
  /**
   * Host names (without port) a request's `Host` may name. When set, every request is checked.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Checks `Host` and `Origin` of requests that arrive on a loopback address: `Host` must name a
   * loopback host (`localhost`, `127.0.0.1`, `[::1]`) and `Origin`, when present, one too (or an
   * allowed origin). This is what stops a web page from reaching a local server through a DNS name
   * that resolves to 127.0.0.1.
   *
   * @default true
   */
  readonly dnsRebindingProtection?: boolean;
}

/**
 * Resolves the DNS-rebinding protection.
 *
 * @param options - allowed origins and hosts, and the switch
 * @param corsAllows - whether the CORS policy allows an origin
 * @returns the guard
 */
export function resolveOriginGuard(
  options: OriginGuardOptions,
  corsAllows: (origin: string) => boolean,
): OriginGuard {
  const on = options.dnsRebindingProtection !== false;
  const origins = options.allowedOrigins;
  const originAllowed =
    origins === undefined
      ? undefined
      : typeof origins === 'function'
        ? origins
        : (origin: string) => origins.includes(origin);
  const hosts =
    options.allowedHosts === undefined
      ? undefined
      : new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  return {
    check(host, origin, localAddress) {
      if (hosts !== undefined && (host === undefined || !hosts.has(hostName(host)))) {
        return 'Forbidden: Host not allowed';
      }
      if (origin !== undefined && originAllowed !== undefined) {
        return originAllowed(origin) || corsAllows(origin)
          ? undefined
          : 'Forbidden: Origin not allowed';
      }
      if (!on || !isLoopbackAddress(localAddress)) return undefined;
      if (hosts === undefined && (host === undefined || !LOOPBACK_HOSTS.has(hostName(host)))) {
        return 'Forbidden: Host not allowed';
      }
      if (origin === 'null') return 'Forbidden: Origin not allowed';
      if (origin !== undefined && !corsAllows(origin)) {
        let name: string;
        try {
          name = new URL(origin).hostname;
        } catch {
          return 'Forbidden: Origin not allowed';
        }
        if (!LOOPBACK_HOSTS.has(name.toLowerCase())) return 'Forbidden: Origin not allowed';
      }
      return undefined;
    },
  };
}

/**
 * Decides what to do with a request before reading its body.
 *
 * @param cfg - the handler's resolved options
 * @param method - the HTTP method
 * @param header - reads a request header
 * @param methods - the methods served (besides OPTIONS for CORS)
 * @param allow - the `Allow` header of a 405 or preflight answer (flat name/value list)
 * @param guard - DNS-rebinding protection, when the handler has one
 * @param localAddress - the address the request arrived on, when known
 * @returns proceed (with the CORS headers of the answer), or the answer to send now
 */
export function checkRequest(
  cfg: ResolvedHandlerOptions,
  method: string,
  header: HeaderReader,
  methods: ReadonlySet<string>,
  allow: readonly string[],
  guard?: OriginGuard,
  localAddress?: string,
): PolicyDecision {
  const origin = header('origin');
  const corsPolicy = cfg.cors;
  const cors = corsPolicy === undefined ? none : corsPolicy.responseHeaders(origin);
  if (guard !== undefined) {
    const refused = guard.check(header('host'), origin, localAddress);
    if (refused !== undefined) {
      return {
        kind: 'answer',
        status: 403,
        body: forbiddenBody(refused),
        headers: cors,
        early: true,
      };
    }
  }
  if (!methods.has(method)) {
    if (method === 'OPTIONS' && corsPolicy !== undefined) {
      const preflight = corsPolicy.preflightHeaders(
        origin,
        header('access-control-request-headers'),
      );
      return {
        kind: 'answer',
        status: 204,
        body: undefined,
        headers: preflight === undefined ? allow : [...allow, ...preflight],
        early: false,
      };
    }
    return {
      kind: 'answer',
      status: 405,
      body: METHOD_NOT_ALLOWED_BODY,
      headers: [...cors, ...allow],
      early: false,
    };
  }
  const proceed: PolicyDecision = cors === none ? PROCEED : { kind: 'proceed', cors };
  if (method !== 'POST') return proceed;
  const type = header('content-type');
  if (type === undefined ? cfg.requireJsonContentType : !isJsonContentType(type)) {
    return {
      kind: 'answer',
      status: 415,
      body: UNSUPPORTED_MEDIA_TYPE_BODY,
      headers: cors,
      early: true,
    };
  }
  const length = header('content-length');
  if (length !== undefined && Number(length) > cfg.maxMessageBytes) {
    return { kind: 'answer', status: 413, body: cfg.tooLargeBody, headers: cors, early: true };
  }
  return proceed;
}
