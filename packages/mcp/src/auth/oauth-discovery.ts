/**
 * The OAuth client's discovery: protected-resource metadata (RFC 9728) from the challenge or the
 * well-known paths, checked to be for the MCP server, and authorization-server metadata
 * (RFC 8414 path insertion, then OpenID discovery; 2025-03-26's defaults for a server without
 * resource metadata).
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { McpAuthError } from './oauth-api.js';
import { canonical, type OAuthClientBase, type OAuthClientCore } from './oauth-core.js';
import type { AuthChallenge } from './www-authenticate.js';

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
 * The discovery steps of a client.
 *
 * @param core - what the client's parts are given
 * @returns `discoverResource` and `discoverAuthorizationServer`
 */
export function discoveryOf(
  core: OAuthClientBase,
): Pick<OAuthClientCore, 'discoverResource' | 'discoverAuthorizationServer'> {
  const { fetchFn } = core;

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
  return { discoverResource, discoverAuthorizationServer };
}
