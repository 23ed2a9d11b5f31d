/**
 * An MCP client on jsonrpc-kit: the `initialize` handshake, tools, resources, prompts,
 * completions and logging, and answers to the server's sampling, elicitation and roots requests,
 * over any kit transport.
 *
 * @module
 */

export type { IdJagRequestOptions } from './auth/id-jag.js';
export { ID_JAG_TOKEN_TYPE, ID_TOKEN_TYPE, requestIdJag } from './auth/id-jag.js';
export type {
  McpAuthProvider,
  OAuthAssertionContext,
  OAuthClientInformation,
  OAuthClientOptions,
  OAuthGrant,
  OAuthState,
  OAuthStore,
  OAuthTokenEndpointAuthMethod,
  OAuthTokens,
} from './auth/oauth-client.js';
export {
  createOAuthClient,
  JWT_BEARER_GRANT_TYPE,
  McpAuthError,
} from './auth/oauth-client.js';
export type { AuthChallenge } from './auth/www-authenticate.js';
export { parseWwwAuthenticate } from './auth/www-authenticate.js';
export type {
  McpCallOptions,
  McpClient,
  McpClientHandlerContext,
  McpClientHandlers,
  McpClientOptions,
  McpListChangedHandlers,
} from './client.js';
export {
  applyElicitationDefaults,
  createMcpClient,
  DEFAULT_MCP_PROTOCOL_VERSION,
  MAX_INPUT_ROUNDS,
  MAX_LIST_PAGES,
  MCP_CLIENT_PROTOCOL_VERSIONS,
  MCP_STATELESS_PROTOCOL_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './client.js';
export type { McpFetch, McpFetchLike, McpFetchOptions } from './client-http.js';
export { createMcpFetch, headerValue, toolHeaderNames } from './client-http.js';
export type {
  CompleteResult,
  CompletionReference,
  InitializeResult,
  JsonSchemaObject,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LogMessage,
  Page,
  PromptInfo,
  ReadResourceResult,
  ResourceTemplateInfo,
  ServerCapabilities,
  ToolInfo,
} from './client-types.js';
export type {
  CallToolResult,
  ClientCapabilities,
  Content,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  PromptMessage,
  ResourceContents,
  ResourceInfo,
  Root,
} from './types.js';
