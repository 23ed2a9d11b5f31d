/**
 * The cancellation and progress profiles (LSP, MCP) and the profiled client. The `rpc.*`
 * providers live behind their own entries: `@jsonrpc-kit/extensions/openrpc`, `/streams`,
 * `/tracing`; logging, metrics and rate limiting ship with the server as
 * `@jsonrpc-kit/server/middleware`.
 *
 * @module
 */
export type { McpProgress, Profile, ProgressProtocol, ProgressToken } from './profiles.js';
export { LSP_REQUEST_CANCELLED, lspProfile, mcpProfile } from './profiles.js';
export type {
  ProfiledClient,
  ProfiledClientOptions,
  ProfiledRequestOptions,
  ProgressReporter,
} from './progress.js';
export { createProfiledClient, progress, progressOf } from './progress.js';
