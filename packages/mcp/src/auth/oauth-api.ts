/**
 * The public shapes of MCP authorization as a client: tokens, registered clients, the grants,
 * the store, the options of `createOAuthClient`, the {@link McpAuthProvider} the MCP `fetch` asks
 * of it, and its error.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';

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
