/**
 * MCP authorization as a client (OAuth 2.1 as the MCP spec requires), on `oauth4webapi`:
 * protected-resource metadata (RFC 9728) from `WWW-Authenticate` or the well-known paths,
 * authorization-server metadata (RFC 8414, OpenID discovery) with issuer validation, client
 * registration (pre-registered, Client ID Metadata Document, dynamic registration RFC 7591), PKCE,
 * resource indicators (RFC 8707), scope selection and step-up, refresh, and a retry limit. The
 * parts are made by concern (`oauth-discovery.ts`, `oauth-registration.ts`, `oauth-grants.ts`,
 * `oauth-dpop.ts`, `oauth-tokens.ts`) on the state made here (`oauth-core.ts`); the public
 * shapes are in `oauth-api.ts`.
 *
 * @module
 */
import type { McpAuthProvider, OAuthClientOptions, OAuthGrant } from './oauth-api.js';
import { httpOf, type OAuthClientBase, type OAuthClientCore } from './oauth-core.js';
import { discoveryOf } from './oauth-discovery.js';
import { dpopOf, sendWithDpop, tokenRequestOf } from './oauth-dpop.js';
import { grantsOf } from './oauth-grants.js';
import { registrationOf } from './oauth-registration.js';
import { memoryStore } from './oauth-tokens.js';
import { parseWwwAuthenticate } from './www-authenticate.js';

export {
  describeOAuthError,
  JWT_BEARER_GRANT_TYPE,
  McpAuthError,
  type McpAuthProvider,
  type OAuthAssertionContext,
  type OAuthClientInformation,
  type OAuthClientOptions,
  type OAuthGrant,
  type OAuthState,
  type OAuthStore,
  type OAuthTokenEndpointAuthMethod,
  type OAuthTokens,
} from './oauth-api.js';

/**
 * Creates the client side of MCP authorization: give it to `createMcpFetch({ auth })`. On a 401
 * it reads the `WWW-Authenticate` challenge, finds the protected-resource metadata (the
 * challenge's `resource_metadata`, else the well-known paths of the server URL) and the
 * authorization server's metadata (RFC 8414 path insertion, then OpenID discovery; the issuer
 * must match), registers the client if it must (a pre-registered id, else a Client ID Metadata
 * Document URL when the server supports them, else dynamic registration), and runs the
 * authorization-code flow with PKCE (S256), `state`, the `resource` indicator and the scope the
 * challenge or the metadata names; a 403 `insufficient_scope` asks again with the scope it
 * names. Tokens are refreshed with the refresh token when there is one. A server that still
 * refuses after `maxAttempts` flows gets the last answer.
 *
 * Other grants (`grant`): `client_credentials` for a machine client, `jwt_bearer` for an
 * assertion (workload identity, enterprise-managed authorization); a failed token request of
 * either is not tried again. The client authenticates with a secret, a private key
 * (`private_key_jwt`) or not at all, and may bind its tokens to a key with DPoP (`dpop`).
 *
 * @param options - the grant, redirect URI and browser step, client registration, store
 * @returns the provider
 * @throws TypeError when the `authorization_code` grant has no `redirectUri` or `authorize`
 * @example
 * ```ts
 * const auth = createOAuthClient({
 *   redirectUri: 'http://127.0.0.1:8765/callback',
 *   authorize: (url) => openBrowserAndWaitForRedirect(url),
 *   clientMetadata: { client_name: 'my-host' },
 * });
 * const http = createMcpFetch({ auth });
 * ```
 */
export function createOAuthClient(options: OAuthClientOptions): McpAuthProvider {
  const grant: OAuthGrant = options.grant ?? { type: 'authorization_code' };
  if (
    grant.type === 'authorization_code' &&
    (options.redirectUri === undefined || options.authorize === undefined)
  ) {
    throw new TypeError(
      'createOAuthClient: the authorization_code grant needs redirectUri and authorize',
    );
  }
  if (grant.type !== 'authorization_code' && options.clientId === undefined) {
    throw new TypeError(`createOAuthClient: the ${grant.type} grant needs a clientId`);
  }
  const store = options.store ?? memoryStore();
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const base: OAuthClientBase = {
    options,
    grant,
    store,
    fetchFn,
    http: httpOf(options, fetchFn),
    dpop: dpopOf(options),
  };
  const core: OAuthClientCore = {
    ...base,
    ...discoveryOf(base),
    ...registrationOf(base),
    tokenRequest: tokenRequestOf(base),
  };
  const { flow, refresh } = grantsOf(core);
  const { dpop } = base;
  const maxAttempts = options.maxAttempts ?? 3;
  /** Flows run in a row per server without a request getting through. */
  const attempts = new Map<string, number>();
  /** One flow at a time per server: concurrent 401s wait for it. */
  const running = new Map<string, Promise<boolean>>();

  return {
    async authorization(resource) {
      const tokens = (await store.load(resource))?.tokens;
      if (tokens === undefined) return undefined;
      const scheme = tokens.token_type.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
      return `${scheme} ${tokens.access_token}`;
    },
    authorized(resource) {
      attempts.delete(resource);
    },
    async send(resource, init, send) {
      const tokens = (await store.load(resource))?.tokens;
      const handle = tokens?.token_type.toLowerCase() === 'dpop' ? await dpop() : undefined;
      if (tokens === undefined || handle === undefined) {
        const headers = new Headers(init.headers);
        if (tokens !== undefined) headers.set('authorization', `Bearer ${tokens.access_token}`);
        return send(resource, { ...init, headers });
      }
      return sendWithDpop(tokens, handle, resource, init, send);
    },
    unauthorized(resource, response) {
      const pending = running.get(resource);
      if (pending !== undefined) return pending;
      const task = (async () => {
        const challenges = parseWwwAuthenticate(response.headers.get('www-authenticate'));
        const challenge = challenges.find((c) => c.scheme === 'bearer') ?? challenges[0];
        const stepUp = response.status === 403 && challenge?.params.error === 'insufficient_scope';
        if (response.status !== 401 && !stepUp) return false;
        const count = (attempts.get(resource) ?? 0) + 1;
        if (count > maxAttempts) return false;
        attempts.set(resource, count);
        const state = await store.load(resource);
        if (
          !stepUp &&
          state?.tokens?.refresh_token !== undefined &&
          challenge?.params.error !== 'insufficient_scope'
        ) {
          if (await refresh(resource)) return true;
        }
        await flow(resource, challenge, stepUp);
        return true;
      })();
      running.set(resource, task);
      return task.finally(() => running.delete(resource));
    },
  };
}
