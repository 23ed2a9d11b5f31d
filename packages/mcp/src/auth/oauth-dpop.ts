/**
 * DPoP (RFC 9449) in the OAuth client: the key pair and handle, token requests answered
 * `use_dpop_nonce` sent again with the nonce, and requests to the MCP server with a fresh proof
 * each.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import type { OAuthClientOptions, OAuthTokens } from './oauth-api.js';
import type { OAuthClientBase, OAuthClientCore } from './oauth-core.js';

/**
 * The DPoP handle of a client, made on first use (an ES256 key pair when `dpop` is `true`).
 *
 * @param options - the client's options
 * @returns the handle's getter (`undefined` without DPoP)
 */
export function dpopOf(options: OAuthClientOptions): OAuthClientBase['dpop'] {
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
  return dpop;
}

/**
 * The token requests of a client (see {@link OAuthClientCore.tokenRequest}).
 *
 * @param core - what the client's parts are given
 * @returns `tokenRequest`
 */
export function tokenRequestOf(core: OAuthClientBase): OAuthClientCore['tokenRequest'] {
  const { dpop } = core;
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
  return tokenRequest;
}

/**
 * Sends a request to the MCP server with a DPoP-bound token: a fresh proof per request (`htm`,
 * `htu`, `ath`, the server's nonce); once more with a new nonce when the server answers
 * `use_dpop_nonce` (RFC 9449 §9).
 *
 * @param tokens - the DPoP-bound tokens
 * @param handle - the DPoP handle
 * @param resource - the MCP server's URL (the request's URL)
 * @param init - the request
 * @param send - the `fetch` to send it with
 * @returns the answer
 */
export async function sendWithDpop(
  tokens: OAuthTokens,
  handle: oauth.DPoPHandle,
  resource: string,
  init: RequestInit,
  send: (input: string, init: RequestInit) => Promise<Response>,
): Promise<Response> {
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
}
