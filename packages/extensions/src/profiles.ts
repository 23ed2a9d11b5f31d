/**
 * Protocol profiles: how LSP and MCP carry cancellation and progress on the wire. They live in
 * core now (a client and a server take one as `profile`); re-exported here for existing imports.
 *
 * @module
 */
export type { McpProgress, Profile, ProgressProtocol, ProgressToken } from '@jsonrpc-kit/core';
export { LSP_REQUEST_CANCELLED, lspProfile, mcpProfile } from '@jsonrpc-kit/core';
