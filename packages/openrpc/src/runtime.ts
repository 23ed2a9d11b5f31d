/**
 * Contracts from documents known only at run time (a gateway, a test tool): params and results
 * validated by `@cfworker/json-schema` against the document's own JSON Schemas, wrapped as
 * Standard Schemas. Untyped by nature: the types come from generated modules.
 *
 * @module
 */
import { type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema';
import {
  type Contract,
  defineContract,
  type ExternalDocs,
  method,
  notification,
  type StandardSchemaV1,
} from '@jsonrpc-kit/core';
import type { StandardSchemaResult } from '@jsonrpc-kit/core/engine';
import { type OpenRpcDocumentInput, type ReadContentDescriptor, readMethods } from './document.js';
import type { JsonSchema } from './valibot-code.js';

/** Options of {@link jsonSchemaValidator}. */
export interface JsonSchemaValidatorOptions {
  /**
   * Named schemas that `$ref`s of the form `#/components/schemas/<name>` point at (an OpenRPC
   * document's `components.schemas`).
   */
  readonly schemas?: { readonly [name: string]: JsonSchema };
  /**
   * The JSON Schema draft.
   * @default "7" (OpenRPC's)
   */
  readonly draft?: SchemaDraft;
}

/** A Standard Schema that validates with a JSON Schema, which it also is (its members copied). */
export type JsonSchemaStandard = StandardSchemaV1 & { readonly [key: string]: unknown };

const COMPONENT_REF = /^#\/components\/schemas\//;

/** `#/components/schemas/X` → `#/$defs/X`, everywhere in a value. */
function toDefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toDefs);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      k === '$ref' && typeof v === 'string' ? v.replace(COMPONENT_REF, '#/$defs/') : toDefs(v);
  }
  return out;
}

/** A JSON Pointer (`#/a/0`) as a Standard Schema path. */
function pathOf(location: string): PropertyKey[] {
  const pointer = location.replace(/^#/, '');
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Wraps a JSON Schema as a Standard Schema validated by `@cfworker/json-schema` (no code
 * generation, so it runs where `eval` is forbidden: workers, browsers with a strict CSP). The
 * result also carries the JSON Schema's members and Standard JSON Schema's `jsonSchema`, so the
 * server reads parameter names from it and `rpc.discover` publishes the schema as it is.
 *
 * @param schema - the JSON Schema
 * @param options - named schemas for `#/components/schemas/…` references, the draft
 * @returns the Standard Schema
 * @example
 * ```ts
 * const positive = jsonSchemaValidator({ type: 'number', exclusiveMinimum: 0 });
 * positive['~standard'].validate(-1); // { issues: [ … ] }
 * ```
 */
export function jsonSchemaValidator(
  schema: JsonSchema,
  options: JsonSchemaValidatorOptions = {},
): JsonSchemaStandard {
  const own = typeof schema === 'boolean' ? {} : schema;
  const defs = toDefs(options.schemas ?? {}) as Record<string, unknown>;
  const root =
    typeof schema === 'boolean'
      ? schema
      : ({ ...(toDefs(schema) as object), $defs: { ...defs, ...(own.$defs as object) } } as Schema);
  const validator = new Validator(root, options.draft ?? '7', false);
  const exported = () => schema;
  return {
    ...own,
    '~standard': {
      version: 1,
      vendor: 'jsonrpc-kit-openrpc',
      validate(value: unknown): StandardSchemaResult<unknown> {
        const result = validator.validate(value);
        if (result.valid) return { value };
        // The innermost failures say the most; the ones above them only repeat "does not match".
        const leaves = result.errors.filter(
          (e, i) =>
            !result.errors.some(
              (other, j) => j !== i && other.keywordLocation.startsWith(`${e.keywordLocation}/`),
            ),
        );
        return {
          issues: (leaves.length > 0 ? leaves : result.errors).map((e) => ({
            message: e.error,
            path: pathOf(e.instanceLocation),
          })),
        };
      },
      jsonSchema: { input: exported, output: exported },
    } as StandardSchemaV1['~standard'],
  };
}

function paramsSchema(params: readonly ReadContentDescriptor[], byName: boolean): JsonSchema {
  if (byName) {
    return {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
  }
  const last = params.findLastIndex((p) => p.required);
  return { type: 'array', items: params.map((p) => p.schema), minItems: last + 1 };
}

/**
 * A contract from an OpenRPC document known only at run time: one `method()` per method with a
 * result, one `notification()` per method without, params and results validated against the
 * document's JSON Schemas ({@link jsonSchemaValidator}), and the document's metadata as each
 * entry's `docs`. `paramStructure: "by-name"` takes an object; the others a tuple with parameter
 * names (the server accepts both forms).
 *
 * @param document - the parsed OpenRPC document; external `$ref`s already bundled
 * @returns the contract (untyped: entries are known at run time only)
 * @throws TypeError when the document is not an OpenRPC document
 * @throws Error when a `$ref` does not resolve
 * @example
 * ```ts
 * const contract = contractFromDocument(JSON.parse(text));
 * server.implement(contract, handlers);
 * ```
 */
export function contractFromDocument(document: OpenRpcDocumentInput): Contract {
  const schemas = ((document.components as { schemas?: unknown } | undefined)?.schemas ??
    {}) as Record<string, JsonSchema>;
  const entries: Record<string, Contract[string]> = {};
  for (const m of readMethods(document)) {
    const byName = m.paramStructure === 'by-name';
    const params = jsonSchemaValidator(paramsSchema(m.params, byName), { schemas });
    const common = {
      params,
      ...(byName ? {} : { paramNames: m.params.map((p) => p.name) }),
      ...(m.description === undefined ? {} : { description: m.description }),
      docs: m.docs,
    };
    entries[m.name] = m.result
      ? method({ ...common, result: jsonSchemaValidator(m.result.schema, { schemas }) })
      : notification(common);
  }
  return defineContract(entries);
}

/** What {@link openrpcOptionsOf} returns: the members of `openrpc()`'s options a document gives. */
export interface DocumentOptions {
  /** The document's `info`: title, version, and the rest. */
  readonly info: {
    /** The service's title. */
    readonly title: string;
    /** The API's version. */
    readonly version: string;
  };
  /** Its `servers`. */
  readonly servers?: readonly {
    /** The endpoint's URL. */
    readonly url: string;
  }[];
  /** Its `components`. */
  readonly components?: { readonly [kind: string]: { readonly [name: string]: unknown } };
  /** Its `externalDocs`. */
  readonly externalDocs?: ExternalDocs;
}

/**
 * What a document says beside its methods, as `openrpc()`'s options: `info`, `servers`,
 * `components`, `externalDocs`. With {@link contractFromDocument}'s contract, the server's
 * `rpc.discover` then answers the document.
 *
 * @param document - the parsed OpenRPC document
 * @returns the options
 * @example
 * ```ts
 * openrpc(server, openrpcOptionsOf(document));
 * ```
 */
export function openrpcOptionsOf(document: OpenRpcDocumentInput): DocumentOptions {
  const out: Record<string, unknown> = { info: document.info };
  for (const k of ['servers', 'components', 'externalDocs'] as const) {
    if (document[k] !== undefined) out[k] = document[k];
  }
  return out as unknown as DocumentOptions;
}
