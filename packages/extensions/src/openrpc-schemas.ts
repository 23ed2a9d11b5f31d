/**
 * The schemas of an OpenRPC document: converted from Standard Schemas, their `$defs` hoisted into
 * `components/schemas` (renamed on a clash) and their `$ref`s pointed there.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@jsonrpc-kit/core';
import type { JsonSchema, JsonSchemaContext, JsonSchemaConverter } from './json-schema.js';

/** Where converted schemas put their `$defs`: the document's `components/schemas`. */
export class SchemaStore {
  /** The document's named schemas, by name. */
  readonly schemas: Record<string, JsonSchema>;
  /** Turns schemas into JSON Schema. */
  readonly converter: JsonSchemaConverter;
  /** What the converter is told (the named schemas). */
  readonly context: JsonSchemaContext;
  /**
   * @param converter - turns schemas into JSON Schema
   * @param context - what the converter is told
   * @param initial - the named schemas published as they are
   */
  constructor(
    converter: JsonSchemaConverter,
    context: JsonSchemaContext,
    initial: { readonly [name: string]: JsonSchema } | undefined,
  ) {
    this.converter = converter;
    this.context = context;
    this.schemas = { ...initial };
  }

  /**
   * Converts a schema and hoists its `$defs`.
   *
   * @param schema - the Standard Schema (none: none)
   * @param io - the input or the output side
   * @returns the JSON Schema, `undefined` when there is none
   */
  async convert(
    schema: StandardSchemaV1 | undefined,
    io: 'input' | 'output',
  ): Promise<JsonSchema | undefined> {
    if (schema === undefined) return undefined;
    const converted = await this.converter(schema, io, this.context);
    return converted === undefined ? undefined : this.hoist(converted);
  }

  /**
   * Moves a schema's `$defs` (or `definitions`) into the components, renaming on a clash.
   *
   * @param schema - the converted schema
   * @returns the schema without its `$defs`, its `$ref`s pointed at the components
   */
  hoist(schema: JsonSchema): JsonSchema {
    const defs = { ...(schema.$defs as object), ...(schema.definitions as object) } as Record<
      string,
      JsonSchema
    >;
    const names = Object.keys(defs);
    if (names.length === 0) return schema;
    const { $defs: _defs, definitions: _definitions, ...rest } = schema;
    const rename = new Map<string, string>();
    for (const name of names) rename.set(name, name);
    for (const name of names) {
      let target = name;
      for (let n = 2; ; n++) {
        const existing = this.schemas[target];
        if (existing === undefined) break;
        if (sameJson(existing, rewriteRefs(defs[name], rename))) break;
        target = `${name}_${n}`;
        rename.set(name, target);
      }
    }
    for (const name of names) {
      this.schemas[rename.get(name)!] = rewriteRefs(defs[name], rename) as JsonSchema;
    }
    return rewriteRefs(rest, rename) as JsonSchema;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Points `#/$defs/<name>` and `#/definitions/<name>` at `#/components/schemas/<renamed>`. */
function rewriteRefs(value: unknown, rename: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rename));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string') {
      const found = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(child);
      const name = found
        ? decodeURIComponent(found[1]!).replace(/~1/g, '/').replace(/~0/g, '~')
        : undefined;
      out[key] =
        name !== undefined && rename.has(name)
          ? `#/components/schemas/${rename.get(name)!}`
          : child;
    } else {
      out[key] = rewriteRefs(child, rename);
    }
  }
  return out;
}
