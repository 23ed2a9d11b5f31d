/**
 * The JSON Schema that `tools/list` shows for a tool's input and output: given as JSON Schema, it
 * is shown as it is; given as a Standard Schema, it is converted through the schema's own export
 * (Standard JSON Schema, zod 4's `toJSONSchema()`), else `@valibot/to-json-schema` for valibot
 * (an optional peer, loaded on first use): `@jsonrpc-kit/extensions`' converter, the one OpenRPC
 * documents use, asked for JSON Schema 2020-12.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@jsonrpc-kit/core';
import { isStandardSchema } from '@jsonrpc-kit/core/engine';
import { defaultJsonSchemaConverter } from '@jsonrpc-kit/extensions/json-schema';

/** A JSON Schema object (MCP's dialect is JSON Schema 2020-12). */
export type JsonSchema = { readonly [key: string]: unknown };

const TARGET = { target: 'draft-2020-12' } as const;

/** An object JSON Schema, as MCP requires for a tool's `inputSchema` and `outputSchema`. */
export type ObjectJsonSchema = {
  /** Always `"object"`. */
  readonly type: 'object';
} & JsonSchema;

/**
 * The object JSON Schema of a tool's input or output: JSON Schema given as it is, a Standard
 * Schema converted, nothing as an object of no properties.
 *
 * @param schema - JSON Schema, a Standard Schema, or nothing
 * @param io - `"input"` or `"output"`
 * @returns an object schema (a converted schema that is not an object's is `{ type: "object" }`)
 * @example
 * ```ts
 * await objectJsonSchema(v.object({ a: v.number() }), 'input');
 * // { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }
 * ```
 */
export async function objectJsonSchema(
  schema: StandardSchemaV1 | JsonSchema | undefined,
  io: 'input' | 'output',
): Promise<ObjectJsonSchema> {
  if (schema === undefined) return { type: 'object', properties: {} };
  if (!isStandardSchema(schema)) return { ...schema, type: 'object' } as ObjectJsonSchema;
  const converted = await defaultJsonSchemaConverter(schema, io, TARGET);
  if (converted === undefined || converted.type !== 'object') return { type: 'object' };
  return converted as ObjectJsonSchema;
}
