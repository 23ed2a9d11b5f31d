/**
 * Turning Standard Schemas into JSON Schema, for OpenRPC (draft-07) and for MCP's tool schemas
 * (2020-12): the schema's own JSON Schema export (Standard JSON Schema `~standard.jsonSchema`, or
 * a `toJSONSchema()` method), else `@valibot/to-json-schema` for valibot schemas (loaded on
 * demand, so it stays optional).
 *
 * @module
 */
import type { StandardSchemaV1 } from '@jsonrpc-kit/core';

/** A JSON Schema (draft-07 as OpenRPC uses, or 2020-12 as MCP does), as a plain object. */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * Converts one schema to JSON Schema. Returns `undefined` when it cannot (the document then says
 * `{}`, "anything").
 *
 * @param schema - a Standard Schema
 * @param io - `"input"` for params (what callers send), `"output"` for results
 * @param context - named schemas to refer to rather than inline
 * @returns the JSON Schema, or a promise of it
 */
export type JsonSchemaConverter = (
  schema: StandardSchemaV1,
  io: 'input' | 'output',
  context?: JsonSchemaContext,
) => JsonSchema | undefined | Promise<JsonSchema | undefined>;

/** What a {@link JsonSchemaConverter} may use beside the schema. */
export interface JsonSchemaContext {
  /**
   * Named schemas: a converter that can refers to them with `{ "$ref": "#/$defs/<name>" }` and
   * puts them in `$defs` (the document moves `$defs` to `components/schemas`).
   */
  readonly definitions?: { readonly [name: string]: StandardSchemaV1 };
  /**
   * The dialect asked of a Standard JSON Schema export: `"draft-07"` for OpenRPC,
   * `"draft-2020-12"` for MCP. Converters that know one dialect only write that one; the result's
   * `$schema` is dropped either way.
   * @default "draft-07"
   */
  readonly target?: 'draft-07' | 'draft-2020-12' | undefined;
}

interface StandardJsonConverter {
  readonly input?: (options: { target: string }) => unknown;
  readonly output?: (options: { target: string }) => unknown;
}

type ValibotToJsonSchema = (
  schema: unknown,
  config?: { errorMode?: string; definitions?: Record<string, unknown> },
) => unknown;

let valibotConverter: Promise<ValibotToJsonSchema | undefined> | undefined;

function loadValibotConverter(): Promise<ValibotToJsonSchema | undefined> {
  valibotConverter ??= import('@valibot/to-json-schema').then(
    (module) => module.toJsonSchema as ValibotToJsonSchema,
    () => undefined,
  );
  return valibotConverter;
}

function asSchema(value: unknown): JsonSchema | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { $schema: _dialect, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * The default converter: the schema's Standard JSON Schema export (`~standard.jsonSchema`), then
 * its `toJSONSchema()` method (zod 4), then `@valibot/to-json-schema` for valibot schemas when
 * that optional peer is installed, with the context's named schemas as `$defs` references. The
 * `$schema` member is dropped (the document, OpenRPC or MCP, fixes the dialect).
 *
 * @param schema - a Standard Schema
 * @param io - `"input"` or `"output"`
 * @param context - named schemas (valibot's converter refers to them)
 * @returns the JSON Schema, or `undefined` when no route applies or conversion fails
 * @example
 * ```ts
 * const json = await defaultJsonSchemaConverter(v.object({ a: v.number() }), 'input');
 * ```
 */
export async function defaultJsonSchemaConverter(
  schema: StandardSchemaV1,
  io: 'input' | 'output',
  context?: JsonSchemaContext,
): Promise<JsonSchema | undefined> {
  try {
    const standard = schema['~standard'] as { jsonSchema?: StandardJsonConverter };
    const exported = standard.jsonSchema?.[io];
    if (typeof exported === 'function') {
      const target = context?.target ?? 'draft-07';
      return asSchema(exported.call(standard.jsonSchema, { target }));
    }
    const own = (schema as { toJSONSchema?: () => unknown }).toJSONSchema;
    if (typeof own === 'function') return asSchema(own.call(schema));
    if (schema['~standard'].vendor === 'valibot') {
      const convert = await loadValibotConverter();
      const definitions = context?.definitions;
      if (convert) {
        return asSchema(
          convert(schema, { errorMode: 'ignore', ...(definitions ? { definitions } : {}) }),
        );
      }
    }
  } catch {
    // A schema that cannot be expressed in JSON Schema is described as "anything".
  }
  return undefined;
}
