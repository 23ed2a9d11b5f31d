/**
 * `rpc.discover`: an OpenRPC document of a server's methods, served by the server itself.
 * Imported from `@jsonrpc-kit/extensions/openrpc`.
 *
 * @module
 */
export type { JsonSchema, JsonSchemaContext, JsonSchemaConverter } from '../json-schema.js';
export { defaultJsonSchemaConverter } from '../json-schema.js';
export type {
  MethodDescription,
  OpenRpcComponents,
  OpenRpcContentDescriptor,
  OpenRpcDocument,
  OpenRpcInfo,
  OpenRpcMethod,
  OpenRpcOptions,
  OpenRpcServer,
  OpenRpcServerVariable,
} from '../openrpc.js';
export { createOpenRpcDocument, describeContract, OPENRPC_VERSION, openrpc } from '../openrpc.js';
