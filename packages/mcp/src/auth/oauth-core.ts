/**
 * What the parts of the OAuth client share: {@link OAuthClientCore}, the state and steps
 * `createOAuthClient` hands each part, and the helpers for request options and resource
 * indicators.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import type {
  OAuthClientInformation,
  OAuthClientOptions,
  OAuthGrant,
  OAuthState,
  OAuthStore,
} from './oauth-api.js';
import type { AuthChallenge } from './www-authenticate.js';

/** The loopback hosts, allowed over `http:` and registered as native clients. */
export const LOOPBACK: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The URL without its fragment: the resource indicator (RFC 8707).
 *
 * @param url - the MCP server's URL
 * @returns the indicator
 */
export function canonical(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}

/** What every part of the OAuth client is given. */
export interface OAuthClientBase {
  /** The options the client was made with. */
  readonly options: OAuthClientOptions;
  /** How tokens are obtained. */
  readonly grant: OAuthGrant;
  /** Where tokens and registrations are kept. */
  readonly store: OAuthStore;
  /** The `fetch` for discovery, registration and token requests. */
  readonly fetchFn: typeof fetch;
  /**
   * The oauth4webapi request options for a URL (its `fetch`, and `http:` allowed where it may
   * be); one object serves every request (its option types differ by request).
   *
   * @param url - the request's URL
   * @returns the options
   */
  http(url: string | URL): any;
  /**
   * The DPoP handle, made on first use; `undefined` without DPoP.
   *
   * @returns the handle
   */
  dpop(): Promise<oauth.DPoPHandle> | undefined;
}

/** The state and the steps `createOAuthClient` hands the grants. */
export interface OAuthClientCore extends OAuthClientBase {
  /**
   * Protected-resource metadata, or `undefined` for a server without any (2025-03-26).
   *
   * @param server - the MCP server's URL
   * @param challenge - the `WWW-Authenticate` challenge, when there was one
   * @returns the metadata
   */
  discoverResource(
    server: URL,
    challenge: AuthChallenge | undefined,
  ): Promise<oauth.ResourceServer | undefined>;
  /**
   * The authorization server's metadata (RFC 8414, then OpenID discovery).
   *
   * @param issuer - its issuer
   * @param legacy - the server has no protected-resource metadata (2025-03-26 defaults allowed)
   * @returns the metadata
   */
  discoverAuthorizationServer(issuer: URL, legacy: boolean): Promise<oauth.AuthorizationServer>;
  /**
   * The client registered at an authorization server (pre-registered, kept, a Client ID
   * Metadata Document, or dynamically registered).
   *
   * @param as - the authorization server
   * @param state - what is kept for the MCP server
   * @param scope - the scope asked for
   * @returns the client
   */
  register(
    as: oauth.AuthorizationServer,
    state: OAuthState,
    scope: string | undefined,
  ): Promise<OAuthClientInformation>;
  /**
   * How the client authenticates at the token endpoint.
   *
   * @param as - the authorization server
   * @param client - the registered client
   * @returns the authentication
   */
  clientAuth(as: oauth.AuthorizationServer, client: OAuthClientInformation): oauth.ClientAuth;
  /**
   * Sends a token request and reads its answer, once more with the server's nonce when it
   * answers `use_dpop_nonce` (RFC 9449 §8).
   *
   * @param send - sends the request with the DPoP option
   * @param read - reads the answer
   * @returns the token endpoint's answer
   */
  tokenRequest(
    send: (dpopOption: { DPoP?: oauth.DPoPHandle }) => Promise<Response>,
    read: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<oauth.TokenEndpointResponse>;
}

/**
 * The oauth4webapi request options of a client (see {@link OAuthClientBase.http}).
 *
 * @param options - the client's options
 * @param fetchFn - the `fetch` to send with
 * @returns the options for a URL
 */
export function httpOf(
  options: OAuthClientOptions,
  fetchFn: typeof fetch,
): OAuthClientBase['http'] {
  // One options object serves every oauth4webapi request (its option types differ by request).
  const http = (url: string | URL): any => {
    const u = new URL(url);
    const insecure =
      u.protocol === 'http:' &&
      (options.allowInsecureRequests === true || LOOPBACK.has(u.hostname));
    return {
      [oauth.customFetch]: fetchFn as never,
      ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    };
  };
  return http;
}
