/**
 * The JSON Schema that `tools/list` shows for a tool's input and output: given as JSON Schema, it
 * is shown as it is; given as a Standard Schema, it is converted through the schema's own export
 * (Standard JSON Schema, zod 4's `toJSONSchema()`), else `@valibot/to-json-schema` for valibot
 * (an optional peer, loaded on first use), as `@jsonrpc-kit/extensions` does for OpenRPC.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@jsonrpc-kit/core';
import { isStandardSchema } from '@jsonrpc-kit/core/engine';

/** A JSON Schema object (MCP's dialect is JSON Schema 2020-12). */
export type JsonSchema = { readonly [key: string]: unknown };

/** An object JSON Schema, as MCP requires for a tool's `inputSchema` and `outputSchema`. */
export type ObjectJsonSchema = {
  /** Always `"object"`. */
  readonly type: 'object';
} & JsonSchema;

interface StandardJsonConverter {
  readonly input?: (options: { target: string }) => unknown;
  readonly output?: (options: { target: string }) => unknown;
}

type ValibotToJsonSchema = (schema: unknown, config?: { errorMode?: string }) => unknown;

let valibotConverter: Promise<ValibotToJsonSchema | undefined> | undefined;

function loadValibotConverter(): Promise<ValibotToJsonSchema | undefined> {
  valibotConverter ??= import('@valibot/to-json-schema').then(
    (module) => module.toJsonSchema as ValibotToJsonSchema,
    () => undefined,
  );
  return valibotConverter;
}

function withoutDialect(value: unknown): JsonSchema | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  // Converters write draft-07's `$schema`; MCP reads schemas without one as 2020-12, and what they
  // produce for argument objects means the same in both.
  const { $schema: _dialect, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * Converts a Standard Schema to JSON Schema.
 *
 * @param schema - a Standard Schema (valibot, zod, arktype, …)
 * @param io - `"input"` for what the client sends, `"output"` for what the tool returns
 * @returns the JSON Schema, or `undefined` when no converter applies
 */
async function convert(
  schema: StandardSchemaV1,
  io: 'input' | 'output',
): Promise<JsonSchema | undefined> {
  try {
    const standard = schema['~standard'] as { jsonSchema?: StandardJsonConverter };
    const exported = standard.jsonSchema?.[io];
    if (typeof exported === 'function') {
      return withoutDialect(exported.call(standard.jsonSchema, { target: 'draft-2020-12' }));
    }
    const own = (schema as { toJSONSchema?: () => unknown }).toJSONSchema;
    if (typeof own === 'function') return withoutDialect(own.call(schema));
    if (schema['~standard'].vendor === 'valibot') {
      const toJsonSchema = await loadValibotConverter();
      if (toJsonSchema) return withoutDialect(toJsonSchema(schema, { errorMode: 'ignore' }));
    }
  } catch {
    // Described as any object below.
  }
  return undefined;
}

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
  const converted = await convert(schema, io);
  if (converted === undefined || converted.type !== 'object') return { type: 'object' };
  return converted as ObjectJsonSchema;
}
