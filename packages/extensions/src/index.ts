/**
 * The LSP and MCP profiles, re-exported from core for existing imports. The `rpc.*` providers
 * live behind their own entries: `@jsonrpc-kit/extensions/openrpc`, `/streams`, `/tracing`;
 * logging, metrics and rate limiting ship with the server as `@jsonrpc-kit/server/middleware`.
 *
 * @module
 */
export type { McpProgress, Profile, ProgressProtocol, ProgressToken } from './profiles.js';
export { LSP_REQUEST_CANCELLED, lspProfile, mcpProfile } from './profiles.js';
