/**
 * Contracts from OpenRPC documents at run time, validated by a JSON Schema validator that runs
 * everywhere (no `node:` import). Imported from `@jsonrpc-kit/openrpc/runtime`.
 *
 * @module
 */
export type { OpenRpcDocumentInput } from '../document.js';
export {
  contractFromDocument,
  type DocumentOptions,
  type JsonSchemaStandard,
  type JsonSchemaValidatorOptions,
  jsonSchemaValidator,
  openrpcOptionsOf,
} from '../runtime.js';
export type { JsonSchema } from '../valibot-code.js';
