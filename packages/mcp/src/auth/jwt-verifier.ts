/**
 * JWT access tokens checked against the authorization server's JWKS (`jose`): the signature,
 * the issuer, the audience (the MCP server's resource, RFC 8707) and the expiry; the scopes, the
 * subject and the client read from the claims.
 *
 * @module
 */
import {
  createRemoteJWKSet,
  customFetch,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose';
import type { AuthInfo } from './protected-resource.js';

/** Options of {@link createJwtVerifier}. */
export interface JwtVerifierOptions {
  /**
   * Where the authorization server publishes its keys (its metadata's `jwks_uri`). Keys are
   * fetched on first use, cached, and fetched again for an unknown `kid`.
   */
  readonly jwksUri?: string | URL;
  /** The keys, instead of `jwksUri`: a key set function of `jose` (`createLocalJWKSet`). */
  readonly keys?: JWTVerifyGetKey;
  /** The issuer a token must name (`iss`). */
  readonly issuer: string | readonly string[];
  /**
   * The audience a token must name (`aud`): the MCP server's resource identifier. A trailing slash
   * is ignored.
   */
  readonly audience: string | readonly string[];
  /**
   * The signature algorithms accepted.
   *
   * @default ['RS256', 'PS256', 'ES256', 'EdDSA']
   */
  readonly algorithms?: readonly string[];
  /**
   * The `typ` header a token must have (`at+jwt` for RFC 9068 tokens). Left out, any.
   */
  readonly typ?: string;
  /**
   * Seconds of clock skew allowed on `exp`, `nbf` and `iat`.
   *
   * @default 30
   */
  readonly clockTolerance?: number;
  /** The `fetch` for the JWKS. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** How long a fetch of the JWKS may take, in ms. @default 5000 */
  readonly timeoutMs?: number;
}

/** The scopes of a token: `scope` (a space-separated string) or `scp` (a list or a string). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s !== '');
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/**
 * Creates a `verify` for `createProtectedResource` that checks JWT access tokens: the signature
 * with a key of the authorization server's JWKS, `iss`, `aud` (the resource, RFC 8707), `exp`
 * (and `nbf`), and reads the scopes (`scope` or `scp`), the subject (`sub`) and the client
 * (`client_id` or `azp`). A token that fails any check is refused (401 `invalid_token`).
 *
 * @param options - where the keys are, the issuer and audience to require
 * @returns the verifier
 * @throws TypeError when neither `jwksUri` nor `keys` is given
 * @example
 * ```ts
 * const protect = createProtectedResource({
 *   resource: 'https://api.example.com/mcp',
 *   authorizationServers: ['https://auth.example.com'],
 *   verify: createJwtVerifier({
 *     jwksUri: 'https://auth.example.com/.well-known/jwks.json',
 *     issuer: 'https://auth.example.com',
 *     audience: 'https://api.example.com/mcp',
 *   }),
 * });
 * ```
 */
export function createJwtVerifier(
  options: JwtVerifierOptions,
): (token: string) => Promise<AuthInfo> {
  let keys: JWTVerifyGetKey;
  if (options.keys !== undefined) keys = options.keys;
  else if (options.jwksUri !== undefined) {
    const fetchFn = options.fetch;
    keys = createRemoteJWKSet(new URL(options.jwksUri), {
      timeoutDuration: options.timeoutMs ?? 5000,
      ...(fetchFn === undefined
        ? {}
        : { [customFetch]: (url: string, init: RequestInit) => fetchFn(url, init) }),
    });
  } else {
    throw new TypeError('createJwtVerifier: give jwksUri or keys');
  }
  const audiences = (
    typeof options.audience === 'string' ? [options.audience] : options.audience
  ).flatMap((a) => {
    const bare = a.replace(/\/+$/, '');
    return [bare, `${bare}/`];
  });
  const verifyOptions: JWTVerifyOptions = {
    issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer],
    audience: audiences,
    algorithms: [...(options.algorithms ?? ['RS256', 'PS256', 'ES256', 'EdDSA'])],
    clockTolerance: options.clockTolerance ?? 30,
    requiredClaims: ['exp'],
    ...(options.typ === undefined ? {} : { typ: options.typ }),
  };
  return async (token) => {
    const { payload } = await jwtVerify(token, keys, verifyOptions);
    const clientId =
      typeof payload.client_id === 'string'
        ? payload.client_id
        : typeof payload.azp === 'string'
          ? payload.azp
          : undefined;
    return {
      scopes: scopesOf(payload),
      ...(payload.sub === undefined ? {} : { subject: payload.sub }),
      ...(clientId === undefined ? {} : { clientId }),
      ...(payload.aud === undefined ? {} : { audience: payload.aud }),
      ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
      claims: payload,
    };
  };
}
