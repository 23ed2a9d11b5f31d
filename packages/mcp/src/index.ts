/**
 * MCP (Model Context Protocol) servers on jsonrpc-kit: tools, resources, prompts, completions
 * and logging, over any kit transport.
 *
 * @module
 */

export type { McpClientRecord, McpClientStore } from './client-store.js';
export type { McpAskOptions, McpClientInfo, McpContext } from './context.js';
export { LOGGING_LEVELS } from './context.js';
export type {
  ArgumentsOf,
  Completer,
  JsonSchema,
  ObjectJsonSchema,
  PromptArgs,
  PromptArgument,
  PromptArgumentsOf,
  PromptDefinition,
  PromptHandler,
  PromptReturn,
  ResourceDefinition,
  ResourceHandler,
  ResourceReturn,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  StructuredOf,
  ToolDefinition,
  ToolHandler,
  ToolInput,
  ToolResult,
  ToolReturn,
} from './definitions.js';
export type { McpHttpOptions, NodeRequestLike, NodeResponseLike } from './http.js';
export { createMcpFetchHandler, createMcpNodeHandler } from './http.js';
export { objectJsonSchema } from './json-schema.js';
export type { SubscriptionFilter } from './listen.js';
export { META_SUBSCRIPTION_ID } from './listen.js';
export type { McpServer, McpServerOptions } from './mcp-server.js';
export {
  createMcpServer,
  DEFAULT_PAGE_SIZE,
  INSUFFICIENT_SCOPE,
  MAX_COMPLETION_VALUES,
  MCP_PUSH_METHODS,
  MCP_SERVER_PROTOCOL_VERSIONS,
  RESOURCE_NOT_FOUND,
} from './mcp-server.js';
export type { InputRequest, RequestStateOptions } from './mrtr.js';
export type { CachingHints, RequestMeta } from './stateless.js';
export {
  HEADER_MISMATCH,
  MCP_STATELESS_PROTOCOL_VERSIONS,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  statelessMetaOf,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './stateless.js';
export type {
  MemoryTaskStoreOptions,
  TaskError,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from './tasks/store.js';
export { createMemoryTaskStore, TERMINAL_TASK_STATUSES } from './tasks/store.js';
export type { TaskOptions, TaskSupport } from './tasks/tasks.js';
export { declaresTasks, TASKS_EXTENSION_ID } from './tasks/tasks.js';
export type {
  AudioContent,
  BlobResourceContents,
  CallToolResult,
  ClientCapabilities,
  Content,
  ContentAnnotations,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  EmbeddedResource,
  GetPromptResult,
  ImageContent,
  Implementation,
  LoggingLevel,
  PromptMessage,
  ResourceContents,
  ResourceInfo,
  ResourceLink,
  Root,
  TextContent,
  TextResourceContents,
  ToolAnnotations,
} from './types.js';
export type { UriTemplate, UriVariables } from './uri-template.js';
export { parseUriTemplate } from './uri-template.js';
