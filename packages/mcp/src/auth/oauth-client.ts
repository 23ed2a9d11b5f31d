/**
 * MCP authorization as a client (OAuth 2.1 as the MCP spec requires), on `oauth4webapi`:
 * protected-resource metadata (RFC 9728) from `WWW-Authenticate` or the well-known paths,
 * authorization-server metadata (RFC 8414, OpenID discovery) with issuer validation, client
 * registration (pre-registered, Client ID Metadata Document, dynamic registration RFC 7591), PKCE,
 * resource indicators (RFC 8707), scope selection and step-up, refresh, and a retry limit.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { type AuthChallenge, parseWwwAuthenticate } from './www-authenticate.js';

/** Tokens as the token endpoint gave them, with when the access token expires. */
export interface OAuthTokens {
  /** The access token. */
  readonly access_token: string;
  /** `bearer` (or `dpop`). */
  readonly token_type: string;
  /** The refresh token, when one was given. */
  readonly refresh_token?: string;
  /** The scope granted, when the server said. */
  readonly scope?: string;
  /** When the access token expires, in ms since the epoch. */
  readonly expires_at?: number;
}

/** A registered client: what the token endpoint needs to know of it. */
export interface OAuthClientInformation {
  /** The client id (a URL for a Client ID Metadata Document). */
  readonly client_id: string;
  /** The secret, for a confidential client. */
  readonly client_secret?: string;
  /** How the client authenticates at the token endpoint. */
  readonly token_endpoint_auth_method?: OAuthTokenEndpointAuthMethod;
}

/**
 * How a client authenticates at the token endpoint: a secret in a Basic header or the form, a JWT
 * assertion signed with its private key (`private_key_jwt`, RFC 7523), or not at all (a public
 * client).
 */
export type OAuthTokenEndpointAuthMethod =
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'private_key_jwt'
  | 'none';

/** What a JWT-bearer grant's `assertion` callback is told of the token request it is for. */
export interface OAuthAssertionContext {
  /** The authorization server's issuer: the audience an assertion for it names. */
  readonly issuer: string;
  /** Its token endpoint. */
  readonly tokenEndpoint: string;
  /** The MCP server's resource identifier (RFC 8707). */
  readonly resource: string;
  /** The scope the request asks for, when one is asked for. */
  readonly scope?: string;
}

/**
 * How {@link createOAuthClient} gets tokens:
 * - `authorization_code` (the default): the user signs in in a browser (PKCE, `state`).
 * - `client_credentials`: a machine client with its own credentials, no user (the MCP
 *   `oauth-client-credentials` extension); give `clientId` and a `clientSecret` or a
 *   `clientPrivateKey`.
 * - `jwt_bearer`: an assertion the client holds is exchanged for a token (RFC 7523): a workload
 *   identity token (workload identity federation), or an ID-JAG from the enterprise identity
 *   provider (enterprise-managed authorization, see {@link requestIdJag}); `assertion` is called
 *   for each token request.
 */
export type OAuthGrant =
  | {
      /** The user signs in in a browser. */
      readonly type: 'authorization_code';
    }
  | {
      /** A machine client with its own credentials. */
      readonly type: 'client_credentials';
    }
  | {
      /** An assertion exchanged for a token (RFC 7523). */
      readonly type: 'jwt_bearer';
      /**
       * The assertion for a token request.
       *
       * @param context - the authorization server and the resource it is for
       * @returns the JWT
       */
      readonly assertion: (context: OAuthAssertionContext) => string | Promise<string>;
    };

/** The grant type URN of the JWT-bearer grant (RFC 7523). */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** What an {@link OAuthStore} keeps for one MCP server. */
export interface OAuthState {
  /** The tokens. */
  readonly tokens?: OAuthTokens;
  /** The scope the last authorization asked for. */
  readonly scope?: string;
  /** The client registered at the authorization server, by issuer. */
  readonly clients?: Readonly<Record<string, OAuthClientInformation>>;
}

/** Where tokens and registrations live between runs (a keychain, a file, memory). */
export interface OAuthStore {
  /**
   * Reads what is kept for a server.
   *
   * @param resource - the MCP server's URL
   * @returns what was saved, if anything
   */
  load(resource: string): OAuthState | undefined | Promise<OAuthState | undefined>;
  /**
   * Keeps what a flow gave.
   *
   * @param resource - the MCP server's URL
   * @param state - the state to keep
   */
  save(resource: string, state: OAuthState): void | Promise<void>;
}

/** Options of {@link createOAuthClient}. */
export interface OAuthClientOptions {
  /**
   * How tokens are obtained.
   *
   * @default { type: 'authorization_code' }
   */
  readonly grant?: OAuthGrant;
  /**
   * The redirect URI registered (a loopback URL for a CLI, a page of a web app). Needed by the
   * `authorization_code` grant.
   */
  readonly redirectUri?: string;
  /**
   * Sends the user to the authorization URL (opens a browser) and resolves with the URL the
   * authorization server redirected back to (its `code`, `state`, `iss`). Needed by the
   * `authorization_code` grant; `createLoopbackReceiver` gives one for a CLI.
   */
  readonly authorize?: (authorizationUrl: URL) => Promise<string | URL>;
  /** A client id registered beforehand (with its secret for a confidential client). */
  readonly clientId?: string;
  /** The pre-registered client's secret. */
  readonly clientSecret?: string;
  /** The pre-registered client's token endpoint authentication. */
  readonly tokenEndpointAuthMethod?: OAuthTokenEndpointAuthMethod;
  /**
   * The pre-registered client's private key for `private_key_jwt` (RFC 7523): each token request
   * carries a short-lived JWT assertion signed with it (`iss` and `sub` the client id, `aud` the
   * issuer). Giving it makes `private_key_jwt` the default method.
   */
  readonly clientPrivateKey?:
    | CryptoKey
    | {
        /** The private key. */
        readonly key: CryptoKey;
        /** Its key id, sent in the assertion's header. */
        readonly kid?: string;
      };
  /**
   * Sender-constrained tokens (DPoP, RFC 9449): token requests carry a DPoP proof, and a token
   * the server issues as `DPoP` goes to the MCP server with a fresh proof on every request
   * (answering `use_dpop_nonce` challenges of both). `true` makes an ES256 key pair for this
   * client; give a key pair to keep tokens usable across runs.
   *
   * @default false
   */
  readonly dpop?: boolean | CryptoKeyPair;
  /**
   * The URL of this client's Client ID Metadata Document: used as the client id when the
   * authorization server says it supports them.
   */
  readonly clientMetadataUrl?: string;
  /** Metadata for dynamic registration (`client_name`, `logo_uri`, …). */
  readonly clientMetadata?: Readonly<Record<string, unknown>>;
  /** The scope to ask for when neither the challenge nor the resource metadata name one. */
  readonly scope?: string;
  /** Where tokens and registrations are kept. @default memory */
  readonly store?: OAuthStore;
  /** The `fetch` for discovery, registration and token requests. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /**
   * Authorization flows in a row for one server before giving up (a server that keeps refusing
   * the tokens it gets).
   *
   * @default 3
   */
  readonly maxAttempts?: number;
  /**
   * Allow `http:` authorization servers. Loopback hosts (`localhost`, `127.0.0.1`, `[::1]`) are
   * always allowed; anything else must be `https:` unless this is set.
   *
   * @default false
   */
  readonly allowInsecureRequests?: boolean;
}

/** What the MCP HTTP `fetch` asks of an authorization provider. */
export interface McpAuthProvider {
  /**
   * The `Authorization` header for a request to the server, when there is a token.
   *
   * @param resource - the MCP server's URL
   * @returns the header's value
   */
  authorization(resource: string): Promise<string | undefined>;
  /**
   * Handles a 401 or 403 answer: refreshes, or runs the authorization flow (step-up for
   * `insufficient_scope`).
   *
   * @param resource - the MCP server's URL
   * @param response - the answer (its `WWW-Authenticate` is read)
   * @returns whether to send the request again
   */
  unauthorized(resource: string, response: Response): Promise<boolean>;
  /**
   * Told when a request with the provider's token got through: a retry limit starts over.
   *
   * @param resource - the MCP server's URL
   */
  authorized?(resource: string): void;
  /**
   * Sends a request with the token bound to it (a DPoP proof per request). When present, the MCP
   * `fetch` sends through it instead of setting `Authorization` from `authorization`.
   *
   * @param resource - the MCP server's URL (the request's URL)
   * @param init - the request
   * @param fetch - the `fetch` to send it with
   * @returns the answer
   */
  send?(
    resource: string,
    init: RequestInit,
    fetch: (input: string, init: RequestInit) => Promise<Response>,
  ): Promise<Response>;
}

/** An error of the authorization flow (discovery, registration, the token endpoint). */
export class McpAuthError extends Error {
  /** The code of this class. */
  static readonly code: 'MCP_AUTH' = 'MCP_AUTH';
  /** The code: `MCP_AUTH`. */
  readonly code: 'MCP_AUTH' = 'MCP_AUTH';
  /**
   * @param message - what failed
   * @param options - the cause
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpAuthError';
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * What went wrong, for a message: an OAuth error answer as its code and description.
 *
 * @param error - what a token request threw
 * @returns the text
 */
export function describeOAuthError(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description === undefined ? '' : `: ${error.error_description}`;
    return `HTTP ${error.status} ${error.error}${description}`;
  }
  return String(error);
}

/** A memory {@link OAuthStore}. */
function memoryStore(): OAuthStore {
  const states = new Map<string, OAuthState>();
  return {
    load: (resource) => states.get(resource),
    save: (resource, state) => void states.set(resource, state),
  };
}

/** The URL without its fragment: the resource indicator (RFC 8707). */
function canonical(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}

/** The well-known URLs of protected-resource metadata for a server URL, most specific first. */
function resourceMetadataUrls(server: URL): string[] {
  const root = `${server.origin}/.well-known/oauth-protected-resource`;
  const path = server.pathname.replace(/\/$/, '');
  return path === '' ? [root] : [`${root}${path}`, root];
}

/** The well-known URLs of authorization-server metadata for an issuer (MCP's order). */
function authorizationServerUrls(issuer: URL): string[] {
  const path = issuer.pathname.replace(/\/$/, '');
  const o = issuer.origin;
  return path === ''
    ? [`${o}/.well-known/oauth-authorization-server`, `${o}/.well-known/openid-configuration`]
    : [
        `${o}/.well-known/oauth-authorization-server${path}`,
        `${o}/.well-known/openid-configuration${path}`,
        `${o}${path}/.well-known/openid-configuration`,
      ];
}

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
  /** The DPoP key pair (made on first use when `dpop` is `true`). */
  let dpopKeys: Promise<CryptoKeyPair> | undefined;
  let dpopHandle: Promise<oauth.DPoPHandle> | undefined;
  const dpop = (): Promise<oauth.DPoPHandle> | undefined => {
    if (options.dpop === undefined || options.dpop === false) return undefined;
    const given = options.dpop;
    dpopKeys ??=
      given === true
        ? oauth.generateKeyPair('ES256', { extractable: false })
        : Promise.resolve(given);
    dpopHandle ??= dpopKeys.then((keys) => oauth.DPoP({}, keys));
    return dpopHandle;
  };
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const maxAttempts = options.maxAttempts ?? 3;
  /** Flows run in a row per server without a request getting through. */
  const attempts = new Map<string, number>();
  /** One flow at a time per server: concurrent 401s wait for it. */
  const running = new Map<string, Promise<boolean>>();

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

  /**
   * A metadata document, or `undefined` when the server answers it has none (a 4xx). A request
   * that fails on the network is tried again once, then fails the flow: a document that could
   * not be read is not taken as absent.
   */
  const getJson = async (url: string): Promise<Response | undefined> => {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchFn(url, { headers: { accept: 'application/json' } });
      } catch (error) {
        if (attempt === 0) continue;
        throw new McpAuthError(`could not read ${url}: ${String(error)}`, { cause: error });
      }
      if (response.ok) return response;
      await response.arrayBuffer().catch(() => undefined);
      if (response.status >= 500 && attempt === 0) continue;
      return undefined;
    }
  };

  /** Protected-resource metadata, or `undefined` for a server without any (2025-03-26). */
  const discoverResource = async (
    server: URL,
    challenge: AuthChallenge | undefined,
  ): Promise<oauth.ResourceServer | undefined> => {
    const given = challenge?.params.resource_metadata;
    const urls =
      given === undefined ? resourceMetadataUrls(server) : [given, ...resourceMetadataUrls(server)];
    for (const url of urls) {
      const response = await getJson(url);
      if (response === undefined) continue;
      const metadata = (await response.json()) as oauth.ResourceServer;
      if (typeof metadata.resource === 'string') {
        // The metadata must be for this server (RFC 9728 §3.3): same origin, a path prefix.
        const resource = new URL(metadata.resource);
        const target = new URL(canonical(server.href));
        const prefix = resource.pathname.endsWith('/')
          ? resource.pathname
          : `${resource.pathname}/`;
        if (
          resource.origin !== target.origin ||
          (target.pathname !== resource.pathname && !target.pathname.startsWith(prefix))
        ) {
          throw new McpAuthError(
            `the protected-resource metadata is for ${metadata.resource}, not ${target.href}`,
          );
        }
      }
      return metadata;
    }
    return undefined;
  };

  const discoverAuthorizationServer = async (
    issuer: URL,
    legacy: boolean,
  ): Promise<oauth.AuthorizationServer> => {
    for (const url of authorizationServerUrls(issuer)) {
      const response = await getJson(url);
      if (response === undefined) continue;
      try {
        return await oauth.processDiscoveryResponse(issuer, response);
      } catch (error) {
        throw new McpAuthError(`authorization server metadata at ${url}: ${String(error)}`, {
          cause: error,
        });
      }
    }
    if (!legacy) throw new McpAuthError(`no authorization server metadata for ${issuer.href}`);
    // 2025-03-26: the server's origin is the authorization server, at its default paths.
    return {
      issuer: issuer.origin,
      authorization_endpoint: `${issuer.origin}/authorize`,
      token_endpoint: `${issuer.origin}/token`,
      registration_endpoint: `${issuer.origin}/register`,
    };
  };

  const register = async (
    as: oauth.AuthorizationServer,
    state: OAuthState,
    scope: string | undefined,
  ): Promise<OAuthClientInformation> => {
    if (options.clientId !== undefined) {
      return {
        client_id: options.clientId,
        ...(options.clientSecret === undefined ? {} : { client_secret: options.clientSecret }),
        ...(options.tokenEndpointAuthMethod === undefined
          ? {}
          : { token_endpoint_auth_method: options.tokenEndpointAuthMethod }),
      };
    }
    const known = state.clients?.[as.issuer];
    if (known !== undefined) return known;
    if (
      options.clientMetadataUrl !== undefined &&
      as.client_id_metadata_document_supported === true
    ) {
      return { client_id: options.clientMetadataUrl, token_endpoint_auth_method: 'none' };
    }
    if (as.registration_endpoint === undefined) {
      throw new McpAuthError(
        `the authorization server ${as.issuer} has no registration endpoint, and no client id was given`,
      );
    }
    const redirectUri = options.redirectUri as string;
    const redirect = new URL(redirectUri);
    const metadata = {
      client_name: 'MCP client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type:
        LOOPBACK.has(redirect.hostname) || !redirect.protocol.startsWith('http') ? 'native' : 'web',
      ...(scope === undefined ? {} : { scope }),
      ...options.clientMetadata,
    };
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      metadata,
      http(as.registration_endpoint),
    );
    // Read leniently: servers omit members RFC 7591 requires with a secret
    // (`client_secret_expires_at`), which oauth4webapi's strict reader refuses.
    const registered = (await response.json().catch(() => undefined)) as
      | Record<string, unknown>
      | undefined;
    if (!response.ok || typeof registered?.client_id !== 'string') {
      throw new McpAuthError(
        `dynamic client registration at ${as.registration_endpoint} failed: HTTP ${response.status} ${JSON.stringify(registered)}`,
      );
    }
    const client: OAuthClientInformation = {
      client_id: registered.client_id,
      ...(typeof registered.client_secret === 'string'
        ? { client_secret: registered.client_secret }
        : {}),
      ...(typeof registered.token_endpoint_auth_method === 'string'
        ? { token_endpoint_auth_method: registered.token_endpoint_auth_method as never }
        : {}),
    };
    return client;
  };

  /** How the client authenticates at the token endpoint. */
  const clientAuth = (
    as: oauth.AuthorizationServer,
    client: OAuthClientInformation,
  ): oauth.ClientAuth => {
    const secret = client.client_secret;
    let method = client.token_endpoint_auth_method;
    if (method === undefined) {
      const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
      method =
        options.clientPrivateKey !== undefined
          ? 'private_key_jwt'
          : secret === undefined
            ? 'none'
            : supported.includes('client_secret_basic')
              ? 'client_secret_basic'
              : supported.includes('client_secret_post')
                ? 'client_secret_post'
                : 'none';
    }
    if (method === 'client_secret_basic' && secret !== undefined) {
      // RFC 6749 §2.3.1 with `encodeURIComponent` (what deployed servers decode): oauth4webapi's
      // form encoding escapes more (`-` as `%2D`), which some servers take literally.
      return (_as, c, _body, headers) => {
        const credentials = `${encodeURIComponent(c.client_id)}:${encodeURIComponent(secret)}`;
        headers.set('authorization', `Basic ${btoa(credentials)}`);
      };
    }
    if (method === 'client_secret_post' && secret !== undefined)
      return oauth.ClientSecretPost(secret);
    if (method === 'private_key_jwt') {
      if (options.clientPrivateKey === undefined) {
        throw new McpAuthError('private_key_jwt needs clientPrivateKey');
      }
      return oauth.PrivateKeyJwt(options.clientPrivateKey as oauth.CryptoKey | oauth.PrivateKey);
    }
    return oauth.None();
  };

  /**
   * Sends a token request and reads its answer, once more with the server's nonce when it
   * answers `use_dpop_nonce` (RFC 9449 §8).
   */
  const tokenRequest = async (
    send: (dpopOption: { DPoP?: oauth.DPoPHandle }) => Promise<Response>,
    read: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<oauth.TokenEndpointResponse> => {
    const handle = await dpop();
    const option = handle === undefined ? {} : { DPoP: handle };
    try {
      return await read(await send(option));
    } catch (error) {
      if (handle === undefined || !oauth.isDPoPNonceError(error)) throw error;
      return read(await send(option));
    }
  };

  const toTokens = (
    response: oauth.TokenEndpointResponse,
    previous?: OAuthTokens,
  ): OAuthTokens => ({
    access_token: response.access_token,
    token_type: response.token_type,
    ...(response.refresh_token !== undefined
      ? { refresh_token: response.refresh_token }
      : previous?.refresh_token !== undefined
        ? { refresh_token: previous.refresh_token }
        : {}),
    ...(response.scope !== undefined ? { scope: response.scope } : {}),
    ...(response.expires_in !== undefined
      ? { expires_at: Date.now() + response.expires_in * 1000 }
      : {}),
  });

  /** The authorization-code flow; saves the tokens. */
  const flow = async (
    resource: string,
    challenge: AuthChallenge | undefined,
    stepUp: boolean,
  ): Promise<void> => {
    const server = new URL(resource);
    const state = (await store.load(resource)) ?? {};
    const prm = await discoverResource(server, challenge);
    const issuer = new URL(prm?.authorization_servers?.[0] ?? server.origin);
    const as = await discoverAuthorizationServer(issuer, prm === undefined);
    let scope =
      challenge?.params.scope ??
      (prm?.scopes_supported !== undefined && prm.scopes_supported.length > 0
        ? prm.scopes_supported.join(' ')
        : options.scope);
    // Step-up asks for what it had and what the challenge names (SEP-2350).
    const previous = state.tokens?.scope ?? state.scope;
    if (stepUp && previous !== undefined) {
      scope = [...new Set([...previous.split(' '), ...(scope ?? '').split(' ')])]
        .filter((s) => s !== '')
        .join(' ');
    }
    const client = await register(as, state, scope);
    const clients = { ...state.clients, [as.issuer]: client };
    await store.save(resource, { ...state, clients });
    const indicator = prm?.resource ?? canonical(resource);
    const oauthClient: oauth.Client = { client_id: client.client_id };
    const save = (tokens: oauth.TokenEndpointResponse) =>
      store.save(resource, {
        ...state,
        clients,
        tokens: toTokens(tokens),
        ...(scope === undefined ? {} : { scope }),
      });

    if (grant.type !== 'authorization_code') {
      const parameters: Record<string, string> = { resource: indicator };
      if (scope !== undefined) parameters.scope = scope;
      const requestOptions = http(as.token_endpoint ?? as.issuer);
      let tokens: oauth.TokenEndpointResponse;
      try {
        if (grant.type === 'jwt_bearer') {
          parameters.assertion = await grant.assertion({
            issuer: as.issuer,
            tokenEndpoint: as.token_endpoint ?? as.issuer,
            resource: indicator,
            ...(scope === undefined ? {} : { scope }),
          });
        }
        tokens = await tokenRequest(
          (dpopOption) =>
            grant.type === 'client_credentials'
              ? oauth.clientCredentialsGrantRequest(
                  as,
                  oauthClient,
                  clientAuth(as, client),
                  parameters,
                  { ...requestOptions, ...dpopOption },
                )
              : oauth.genericTokenEndpointRequest(
                  as,
                  oauthClient,
                  clientAuth(as, client),
                  JWT_BEARER_GRANT_TYPE,
                  parameters,
                  { ...requestOptions, ...dpopOption },
                ),
          (response) => oauth.processGenericTokenEndpointResponse(as, oauthClient, response),
        );
      } catch (error) {
        if (error instanceof McpAuthError) throw error;
        throw new McpAuthError(`the ${grant.type} token request: ${describeOAuthError(error)}`, {
          cause: error,
        });
      }
      await save(tokens);
      return;
    }

    const redirectUri = options.redirectUri as string;
    const verifier = oauth.generateRandomCodeVerifier();
    const expectedState = oauth.generateRandomState();
    if (as.authorization_endpoint === undefined) {
      throw new McpAuthError(`the authorization server ${as.issuer} has no authorization endpoint`);
    }
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', expectedState);
    url.searchParams.set('resource', indicator);
    if (scope !== undefined) url.searchParams.set('scope', scope);
    const authorize = options.authorize as (authorizationUrl: URL) => Promise<string | URL>;
    const callback = new URL(await authorize(url));
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, oauthClient, callback, expectedState);
    } catch (error) {
      throw new McpAuthError(`the authorization response: ${String(error)}`, { cause: error });
    }
    const tokens = await tokenRequest(
      (dpopOption) =>
        oauth.authorizationCodeGrantRequest(
          as,
          oauthClient,
          clientAuth(as, client),
          params,
          redirectUri,
          verifier,
          {
            additionalParameters: { resource: indicator },
            ...http(as.token_endpoint ?? as.issuer),
            ...dpopOption,
          },
        ),
      (response) => oauth.processAuthorizationCodeResponse(as, oauthClient, response),
    );
    await save(tokens);
  };

  /** Refreshes the tokens; false when there is no refresh token or the server refused. */
  const refresh = async (resource: string): Promise<boolean> => {
    const state = await store.load(resource);
    const refreshToken = state?.tokens?.refresh_token;
    if (state === undefined || refreshToken === undefined) return false;
    try {
      const server = new URL(resource);
      const prm = await discoverResource(server, undefined);
      const issuer = new URL(prm?.authorization_servers?.[0] ?? server.origin);
      const as = await discoverAuthorizationServer(issuer, prm === undefined);
      const client = state.clients?.[as.issuer];
      if (client === undefined) return false;
      const oauthClient: oauth.Client = { client_id: client.client_id };
      const tokens = await tokenRequest(
        (dpopOption) =>
          oauth.refreshTokenGrantRequest(as, oauthClient, clientAuth(as, client), refreshToken, {
            additionalParameters: { resource: prm?.resource ?? canonical(resource) },
            ...http(as.token_endpoint ?? as.issuer),
            ...dpopOption,
          }),
        (response) => oauth.processRefreshTokenResponse(as, oauthClient, response),
      );
      await store.save(resource, { ...state, tokens: toTokens(tokens, state.tokens) });
      return true;
    } catch {
      await store.save(resource, { ...state, tokens: undefined as never });
      return false;
    }
  };

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
      // A fresh proof per request (`htm`, `htu`, `ath`, the server's nonce); once more with a new
      // nonce when the server answers `use_dpop_nonce` (RFC 9449 §9).
      for (let attempt = 0; ; attempt++) {
        try {
          return await oauth.protectedResourceRequest(
            tokens.access_token,
            init.method ?? 'GET',
            new URL(resource),
            new Headers(init.headers),
            (init.body ?? null) as oauth.ProtectedResourceRequestBody,
            {
              DPoP: handle,
              // The request's own signal (a stream may stay open long), not a default timeout.
              [oauth.customFetch]: ((url: string, request: RequestInit) =>
                send(url, {
                  ...request,
                  signal: init.signal ?? null,
                  redirect: init.redirect ?? 'follow',
                })) as never,
              ...(new URL(resource).protocol === 'http:'
                ? { [oauth.allowInsecureRequests]: true }
                : {}),
            },
          );
        } catch (error) {
          if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
          if (attempt === 0 && oauth.isDPoPNonceError(error)) {
            await error.response.body?.cancel();
            continue;
          }
          return error.response;
        }
      }
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
