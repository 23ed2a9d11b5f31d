/**
 * Standard Schemas as JSON Schema: the converter `rpc.discover` and `@jsonrpc-kit/mcp`'s
 * `tools/list` share. Imported from `@jsonrpc-kit/extensions/json-schema`.
 *
 * @module
 */
export type { JsonSchema, JsonSchemaContext, JsonSchemaConverter } from '../json-schema.js';
export { defaultJsonSchemaConverter } from '../json-schema.js';
