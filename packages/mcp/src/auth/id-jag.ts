/**
 * Enterprise-managed authorization (the MCP `enterprise-managed-authorization` extension,
 * SEP-990): the user's ID token from the enterprise identity provider is exchanged there
 * (RFC 8693 token exchange) for an ID-JAG, an Identity Assertion JWT Authorization Grant, which
 * the MCP server's authorization server takes in a JWT-bearer grant (RFC 7523).
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { describeOAuthError, McpAuthError } from './oauth-client.js';

/** The token type URN of an ID-JAG. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
/** The token type URN of an OpenID Connect ID token. */
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Options of {@link requestIdJag}. */
export interface IdJagRequestOptions {
  /** The identity provider's token endpoint. */
  readonly tokenEndpoint: string;
  /** The identity provider's issuer. @default the token endpoint's origin */
  readonly issuer?: string;
  /** The user's ID token from the identity provider (the subject token). */
  readonly idToken: string;
  /** The authorization server the ID-JAG is for: its issuer (the `audience`). */
  readonly audience: string;
  /** The MCP server's resource identifier (RFC 8707). */
  readonly resource: string;
  /** The scope to ask for. */
  readonly scope?: string;
  /** This client's id at the identity provider. */
  readonly clientId: string;
  /** Its secret there (sent as HTTP Basic), for a confidential client. */
  readonly clientSecret?: string;
  /** The `fetch` for the request. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/**
 * Exchanges the user's ID token for an ID-JAG at the enterprise identity provider (RFC 8693:
 * `subject_token_type` ID token, `requested_token_type` ID-JAG, the authorization server as
 * `audience`, the MCP server as `resource`). Give it to `createOAuthClient` as the assertion of a
 * `jwt_bearer` grant.
 *
 * @param options - the identity provider, the ID token, the authorization server and resource
 * @returns the ID-JAG (a JWT)
 * @throws McpAuthError when the identity provider refuses or answers something else
 * @example
 * ```ts
 * const auth = createOAuthClient({
 *   clientId: 'my-mcp-client',
 *   clientSecret: process.env.CLIENT_SECRET,
 *   grant: {
 *     type: 'jwt_bearer',
 *     assertion: ({ issuer, resource, scope }) =>
 *       requestIdJag({
 *         tokenEndpoint: 'https://idp.example.com/oauth2/token',
 *         clientId: 'my-idp-client',
 *         idToken,
 *         audience: issuer,
 *         resource,
 *         scope,
 *       }),
 *   },
 * });
 * ```
 */
export async function requestIdJag(options: IdJagRequestOptions): Promise<string> {
  const endpoint = new URL(options.tokenEndpoint);
  const as: oauth.AuthorizationServer = {
    issuer: options.issuer ?? endpoint.origin,
    token_endpoint: endpoint.href,
  };
  const client: oauth.Client = { client_id: options.clientId };
  const parameters: Record<string, string> = {
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: options.audience,
    resource: options.resource,
    subject_token: options.idToken,
    subject_token_type: ID_TOKEN_TYPE,
  };
  if (options.scope !== undefined) parameters.scope = options.scope;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(endpoint.hostname);
  try {
    const response = await oauth.genericTokenEndpointRequest(
      as,
      client,
      options.clientSecret === undefined
        ? oauth.None()
        : oauth.ClientSecretBasic(options.clientSecret),
      TOKEN_EXCHANGE,
      parameters,
      {
        ...(options.fetch === undefined ? {} : { [oauth.customFetch]: options.fetch }),
        ...(endpoint.protocol === 'http:' && loopback
          ? { [oauth.allowInsecureRequests]: true }
          : {}),
      },
    );
    // An ID-JAG is no access token: its `token_type` is `N_A` (RFC 8693 §2.2.1).
    const result = await oauth.processGenericTokenEndpointResponse(as, client, response, {
      recognizedTokenTypes: { n_a: () => undefined },
    });
    if (result.issued_token_type !== ID_JAG_TOKEN_TYPE) {
      throw new McpAuthError(
        `the identity provider issued ${String(result.issued_token_type)}, not an ID-JAG`,
      );
    }
    return result.access_token;
  } catch (error) {
    if (error instanceof McpAuthError) throw error;
    throw new McpAuthError(`the ID-JAG token exchange: ${describeOAuthError(error)}`, {
      cause: error,
    });
  }
}
