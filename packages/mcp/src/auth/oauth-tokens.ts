/**
 * The OAuth client's tokens as kept: read from a token endpoint's answer (with when they
 * expire), and the memory store used when no store is given.
 *
 * @module
 */
import type * as oauth from 'oauth4webapi';
import type { OAuthState, OAuthStore, OAuthTokens } from './oauth-api.js';

/**
 * A memory {@link OAuthStore}.
 *
 * @returns the store
 */
export function memoryStore(): OAuthStore {
  const states = new Map<string, OAuthState>();
  return {
    load: (resource) => states.get(resource),
    save: (resource, state) => void states.set(resource, state),
  };
}

/**
 * The tokens to keep from a token endpoint's answer; a refresh that gives no new refresh token
 * keeps the previous one.
 *
 * @param response - the token endpoint's answer
 * @param previous - the tokens it replaces
 * @returns the tokens
 */
export const toTokens = (
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
