/**
 * A protected MCP server: bearer tokens checked by the Streamable HTTP handler's `authenticate`
 * (JWT access tokens against the authorization server's JWKS with `createJwtVerifier`), 401 with
 * `WWW-Authenticate` and the protected-resource metadata (RFC 9728), 403 `insufficient_scope` for
 * a tool the token lacks the scopes of.
 *
 * @module
 */
export type { JwtVerifierOptions } from './auth/jwt-verifier.js';
export { createJwtVerifier } from './auth/jwt-verifier.js';
export type {
  AuthInfo,
  ProtectedNodeRequest,
  ProtectedNodeResponse,
  ProtectedResource,
  ProtectedResourceOptions,
} from './auth/protected-resource.js';
export { createProtectedResource } from './auth/protected-resource.js';
