/**
 * OpenRPC in, typed contracts out: generates a contract module (valibot schemas, the document's
 * metadata) from an OpenRPC document, and loads documents from JSON or YAML files, one file with
 * its `$ref`s bundled in or files of methods and schemas merged.
 *
 * @module
 */
export { type CliCommand, parseCli, USAGE } from './cli-args.js';
export type { OpenRpcDocumentInput } from './document.js';
export { type GenerateOptions, generateContractModule } from './generate.js';
export { loadDocument, parseDocumentText } from './load.js';
export { loadMergedDocument, type MergeSources } from './merge.js';
export type { JsonSchema } from './valibot-code.js';
