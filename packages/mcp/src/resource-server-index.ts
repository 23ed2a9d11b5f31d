/**
 * A protected MCP server: bearer tokens checked by the Streamable HTTP handler's `authenticate`,
 * 401 with `WWW-Authenticate` and the protected-resource metadata (RFC 9728).
 *
 * @module
 */
export type {
  AuthInfo,
  ProtectedResource,
  ProtectedResourceOptions,
} from './auth/protected-resource.js';
export { createProtectedResource } from './auth/protected-resource.js';
