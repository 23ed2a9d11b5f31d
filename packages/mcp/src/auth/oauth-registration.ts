/**
 * The OAuth client's registration: the client it is at an authorization server (pre-registered,
 * kept from before, a Client ID Metadata Document URL, or registered dynamically, RFC 7591) and
 * how it authenticates at the token endpoint (a secret, `private_key_jwt`, or none).
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { McpAuthError, type OAuthClientInformation, type OAuthState } from './oauth-api.js';
import { LOOPBACK, type OAuthClientBase, type OAuthClientCore } from './oauth-core.js';

/**
 * The registration steps of a client.
 *
 * @param core - what the client's parts are given
 * @returns `register` and `clientAuth`
 */
export function registrationOf(
  core: OAuthClientBase,
): Pick<OAuthClientCore, 'register' | 'clientAuth'> {
  const { options, http } = core;

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
  return { register, clientAuth };
}
