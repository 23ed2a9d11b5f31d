/**
 * The OAuth client's grants: the authorization-code flow (PKCE, `state`, the resource indicator,
 * scope selection and step-up), the `client_credentials` and `jwt_bearer` token requests, and
 * refresh.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { describeOAuthError, JWT_BEARER_GRANT_TYPE, McpAuthError } from './oauth-api.js';
import { canonical, type OAuthClientCore } from './oauth-core.js';
import { toTokens } from './oauth-tokens.js';
import type { AuthChallenge } from './www-authenticate.js';

/** The grants of a client. */
export interface OAuthGrants {
  /**
   * Runs the grant (the authorization-code flow, or a token request) and saves the tokens.
   *
   * @param resource - the MCP server's URL
   * @param challenge - the `WWW-Authenticate` challenge, when there was one
   * @param stepUp - asks for more scope (a 403 `insufficient_scope`)
   */
  flow(resource: string, challenge: AuthChallenge | undefined, stepUp: boolean): Promise<void>;
  /**
   * Refreshes the tokens.
   *
   * @param resource - the MCP server's URL
   * @returns false when there is no refresh token or the server refused
   */
  refresh(resource: string): Promise<boolean>;
}

/**
 * The grants of a client.
 *
 * @param core - what the client's parts share
 * @returns `flow` and `refresh`
 */
export function grantsOf(core: OAuthClientCore): OAuthGrants {
  const {
    options,
    grant,
    store,
    http,
    discoverResource,
    discoverAuthorizationServer,
    register,
    clientAuth,
    tokenRequest,
  } = core;

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
  return { flow, refresh };
}
