/**
 * OpenRPC service discovery: an OpenRPC 1.3.2 document generated from a server's registry (or
 * from contracts), served as `rpc.discover`.
 *
 * @module
 */
import type {
  ContentDescriptorDocs,
  Contract,
  ExternalDocs,
  MethodDocs,
  StandardSchemaV1,
} from '@jsonrpc-kit/core';
import type { Server } from '@jsonrpc-kit/server';
import {
  defaultJsonSchemaConverter,
  type JsonSchema,
  type JsonSchemaContext,
  type JsonSchemaConverter,
} from './json-schema.js';

/**
 * The OpenRPC version the documents declare.
 * @default "1.3.2"
 */
export const OPENRPC_VERSION: '1.3.2' = '1.3.2';

/** What OpenRPC needs to know about one method or notification. */
export interface MethodDescription {
  /** The full method name. */
  readonly name: string;
  /** A method (answered) or a notification. */
  readonly kind: 'method' | 'notification';
  /** Schema of the params. */
  readonly params: StandardSchemaV1 | undefined;
  /** Schema of the result (methods only). */
  readonly result?: StandardSchemaV1 | undefined;
  /** Parameter names in positional order, when known. */
  readonly paramNames: readonly string[] | undefined;
  /** Description. */
  readonly description: string | undefined;
  /**
   * The rest of the method's API description: written into its method object (a param's or the
   * result's `schema` there wins over the one derived from the Standard Schema).
   */
  readonly docs?: MethodDocs | undefined;
  /** `true` for `rpc.*` methods. */
  readonly system?: boolean;
}

/** The `info` object of an OpenRPC document. */
export interface OpenRpcInfo {
  /** The service's title. */
  readonly title: string;
  /** The API's version (not the OpenRPC version). */
  readonly version: string;
  /** A longer description (Markdown). */
  readonly description?: string;
  /** A URL of the terms of service. */
  readonly termsOfService?: string;
  /** Who to contact. */
  readonly contact?: {
    /** The person or organisation. */
    readonly name?: string;
    /** Their email address. */
    readonly email?: string;
    /** Their web page. */
    readonly url?: string;
  };
  /** The license of the API. */
  readonly license?: {
    /** The license's name, e.g. `"MIT"`. */
    readonly name?: string;
    /** Where its text is. */
    readonly url?: string;
  };
}

/** A `server` object of an OpenRPC document. */
export interface OpenRpcServer {
  /** The endpoint's URL. */
  readonly url: string;
  /** A name for it. */
  readonly name?: string;
  /** A longer description. */
  readonly description?: string;
  /** A short summary. */
  readonly summary?: string;
  /** Values substituted for `{name}` in the URL. */
  readonly variables?: { readonly [name: string]: OpenRpcServerVariable };
}

/** A server variable: a value substituted for `{name}` in a server's URL. */
export interface OpenRpcServerVariable {
  /** The value used when none is given. */
  readonly default: string;
  /** The values allowed. */
  readonly enum?: readonly string[];
  /** A description. */
  readonly description?: string;
}

/** The `components` object of an OpenRPC document. */
export interface OpenRpcComponents {
  /** Named JSON Schemas, referred to as `#/components/schemas/<name>`. */
  readonly schemas?: { readonly [name: string]: JsonSchema };
  /** The other kinds: `contentDescriptors`, `examples`, `links`, `errors`, `tags`, … */
  readonly [kind: string]: { readonly [name: string]: unknown } | undefined;
}

/** An OpenRPC content descriptor (a param or a result). */
export interface OpenRpcContentDescriptor {
  /** The param's name (`"result"` for results). */
  readonly name: string;
  /** Its JSON Schema (`{}`: anything). */
  readonly schema: JsonSchema;
  /** Whether the param must be given. */
  readonly required?: boolean;
  /** A description. */
  readonly description?: string;
  /** A short summary. */
  readonly summary?: string;
  /** Whether the param is deprecated. */
  readonly deprecated?: boolean;
}

/** A method object of an OpenRPC document. Notifications have no `result`. */
export interface OpenRpcMethod {
  /** The method's name. */
  readonly name: string;
  /** Its description. */
  readonly description?: string;
  /** How params may be sent. */
  readonly paramStructure: 'by-name' | 'by-position' | 'either';
  /** The params, in positional order. */
  readonly params: readonly OpenRpcContentDescriptor[];
  /** The result; absent for notifications. */
  readonly result?: OpenRpcContentDescriptor;
  /** `true` for notifications (no answer). */
  readonly 'x-notification'?: true;
  /** The whole params schema, when it is neither an object nor a tuple (a variadic array, say). */
  readonly 'x-params-schema'?: JsonSchema;
  /** A short summary. */
  readonly summary?: string;
  /** Tags for grouping. */
  readonly tags?: MethodDocs['tags'];
  /** Example pairings of params and result. */
  readonly examples?: MethodDocs['examples'];
  /** The application errors the method may answer. */
  readonly errors?: MethodDocs['errors'];
  /** Whether the method is deprecated. */
  readonly deprecated?: boolean;
  /** Where more documentation is. */
  readonly externalDocs?: MethodDocs['externalDocs'];
  /** Other members from the method's docs (`links`, `servers`, `x-…`). */
  readonly [member: string]: unknown;
}

/** An OpenRPC 1.3.2 document. */
export interface OpenRpcDocument {
  /** The OpenRPC version: `"1.3.2"`. */
  readonly openrpc: typeof OPENRPC_VERSION;
  /** About the service. */
  readonly info: OpenRpcInfo;
  /** Where it is reachable. */
  readonly servers?: readonly OpenRpcServer[];
  /** Every method and notification. */
  readonly methods: readonly OpenRpcMethod[];
  /** Named schemas (and the other reusable objects). */
  readonly components?: OpenRpcComponents;
  /** Where more documentation is. */
  readonly externalDocs?: ExternalDocs;
}

/** Options of {@link createOpenRpcDocument} and {@link openrpc}. */
export interface OpenRpcOptions {
  /** Title, version and the rest of the `info` object. */
  readonly info: OpenRpcInfo;
  /** Where the service is reachable. */
  readonly servers?: readonly OpenRpcServer[];
  /**
   * Turns schemas into JSON Schema.
   * @default defaultJsonSchemaConverter
   */
  readonly converter?: JsonSchemaConverter;
  /**
   * Whether `rpc.*` methods (`rpc.discover`, `rpc.stream.*`) are listed.
   * @default false
   */
  readonly includeSystem?: boolean;
  /**
   * Named schemas: where a param or result uses one of them (the same schema object), the document
   * says `{ "$ref": "#/components/schemas/<name>" }` and lists it once under `components/schemas`
   * (with the default converter: valibot schemas).
   */
  readonly schemas?: { readonly [name: string]: StandardSchemaV1 };
  /** Components published as they are (JSON Schemas the methods' docs refer to, errors, tags). */
  readonly components?: OpenRpcComponents;
  /** Where more documentation is. */
  readonly externalDocs?: ExternalDocs;
  /**
   * Amends the document before it is answered (add `x-…` members, drop a method): return the
   * document to publish.
   */
  readonly amend?: (document: OpenRpcDocument) => OpenRpcDocument | Promise<OpenRpcDocument>;
}

/**
 * Lists the entries of a contract as {@link MethodDescription}s, for
 * {@link createOpenRpcDocument} without a server.
 *
 * @param contract - the contract
 * @param prefix - prepended to every name, as in `server.implement(contract, impl, { prefix })`
 * @returns one description per entry, in declaration order
 * @example
 * ```ts
 * const doc = await createOpenRpcDocument(describeContract(calculator), { info });
 * ```
 */
export function describeContract(contract: Contract, prefix = ''): MethodDescription[] {
  const described: MethodDescription[] = [];
  for (const [name, entry] of Object.entries(contract)) {
    if (entry.kind === 'subscription') continue; // served through a dialect's subscribe method
    described.push({
      name: prefix + name,
      kind: entry.kind,
      params: entry.params,
      result: entry.kind === 'method' ? entry.result : undefined,
      paramNames: entry.paramNames,
      description: entry.description,
      docs: entry.docs,
    });
  }
  return described;
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

function tupleItems(schema: JsonSchema): readonly JsonSchema[] | undefined {
  if (schema.type !== 'array') return undefined;
  const items = Array.isArray(schema.prefixItems) ? schema.prefixItems : schema.items;
  return Array.isArray(items) ? (items as JsonSchema[]) : undefined;
}

/** Where converted schemas put their `$defs`: the document's `components/schemas`. */
class SchemaStore {
  readonly schemas: Record<string, JsonSchema>;
  readonly converter: JsonSchemaConverter;
  readonly context: JsonSchemaContext;
  constructor(
    converter: JsonSchemaConverter,
    context: JsonSchemaContext,
    initial: { readonly [name: string]: JsonSchema } | undefined,
  ) {
    this.converter = converter;
    this.context = context;
    this.schemas = { ...initial };
  }

  async convert(
    schema: StandardSchemaV1 | undefined,
    io: 'input' | 'output',
  ): Promise<JsonSchema | undefined> {
    if (schema === undefined) return undefined;
    const converted = await this.converter(schema, io, this.context);
    return converted === undefined ? undefined : this.hoist(converted);
  }

  /** Moves a schema's `$defs` (or `definitions`) into the components, renaming on a clash. */
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

function withDocs(
  described: OpenRpcContentDescriptor | undefined,
  docs: ContentDescriptorDocs | undefined,
): OpenRpcContentDescriptor | undefined {
  if (docs === undefined) return described;
  return { ...described, ...docs, schema: docs.schema ?? described?.schema ?? {} };
}

async function describeMethod(
  entry: MethodDescription,
  store: SchemaStore,
): Promise<OpenRpcMethod> {
  const docs = entry.docs;
  const docParams = docs?.params;
  // Docs that publish every param's schema are the params; no conversion is needed.
  const paramsFromDocs = docParams?.every((p) => p.schema !== undefined) === true;
  const paramsSchema = paramsFromDocs ? undefined : await store.convert(entry.params, 'input');
  const names = entry.paramNames;
  let params: OpenRpcContentDescriptor[] = [];
  let paramStructure: OpenRpcMethod['paramStructure'] = names ? 'either' : 'by-position';
  let extra: JsonSchema | undefined;
  if (paramsSchema && isObjectSchema(paramsSchema)) {
    const properties = paramsSchema.properties as Record<string, JsonSchema>;
    const required = Array.isArray(paramsSchema.required) ? paramsSchema.required : [];
    const order = names ?? Object.keys(properties);
    params = order.map((name) => ({
      name,
      schema: properties[name] ?? {},
      required: required.includes(name),
    }));
    // An object schema always yields names (core's paramNamesOf), so the server accepts both.
    paramStructure = names ? 'either' : 'by-name';
  } else if (paramsSchema && tupleItems(paramsSchema)) {
    const items = tupleItems(paramsSchema) ?? [];
    const minItems = typeof paramsSchema.minItems === 'number' ? paramsSchema.minItems : undefined;
    params = items.map((schema, index) => ({
      name: names?.[index] ?? `param${index}`,
      schema,
      required: minItems === undefined || index < minItems,
    }));
  } else if (paramsSchema) {
    extra = paramsSchema;
  } else if (names) {
    params = names.map((name) => ({ name, schema: {} }));
  }
  if (docParams !== undefined) {
    params = docParams.map(
      (p, index) => withDocs(params.find((d) => d.name === p.name) ?? params[index], p)!,
    );
  }
  const { params: _params, result: resultDocs, paramStructure: structure, ...members } = docs ?? {};
  const method: Record<string, unknown> = {
    name: entry.name,
    paramStructure: structure ?? paramStructure,
    params,
  };
  if (entry.description !== undefined) method.description = entry.description;
  if (entry.kind === 'notification') {
    method['x-notification'] = true;
  } else {
    const result =
      resultDocs?.schema !== undefined ? undefined : await store.convert(entry.result, 'output');
    method.result = withDocs({ name: 'result', schema: result ?? {} }, resultDocs);
  }
  if (extra) method['x-params-schema'] = extra;
  Object.assign(method, members);
  return method as unknown as OpenRpcMethod;
}

/**
 * Builds an OpenRPC 1.3.2 document from method descriptions (`server.methods()` or
 * {@link describeContract}). Methods with known parameter names are `"either"` (the server accepts
 * them by name and by position); tuple schemas without names are `"by-position"`. Notifications
 * carry `"x-notification": true` and no `result`. A method's `docs` (summary, tags, examples,
 * errors, param and result descriptions, …) go into its method object; named schemas
 * (`options.schemas`, and the `$defs` of recursive schemas) go to `components/schemas`.
 *
 * @param methods - the methods to describe
 * @param options - `info`, `servers`, named schemas, components, the schema converter, `amend`
 * @returns the document
 * @example
 * ```ts
 * const doc = await createOpenRpcDocument(server.methods(), { info: { title: 'calc', version: '1.0.0' } });
 * ```
 */
export async function createOpenRpcDocument(
  methods: readonly MethodDescription[],
  options: OpenRpcOptions,
): Promise<OpenRpcDocument> {
  const converter = options.converter ?? defaultJsonSchemaConverter;
  const context: JsonSchemaContext = options.schemas ? { definitions: options.schemas } : {};
  const store = new SchemaStore(converter, context, options.components?.schemas);
  for (const [name, schema] of Object.entries(options.schemas ?? {})) {
    // Each named schema is listed even when no method uses it.
    const converted = await store.convert(schema, 'output');
    if (converted !== undefined && store.schemas[name] === undefined)
      store.schemas[name] = converted;
  }
  const listed = options.includeSystem ? methods : methods.filter((m) => !isSystem(m));
  const described: OpenRpcMethod[] = [];
  for (const m of listed) described.push(await describeMethod(m, store));
  const components = { ...options.components };
  if (Object.keys(store.schemas).length > 0) components.schemas = store.schemas;
  const document: OpenRpcDocument = {
    openrpc: OPENRPC_VERSION,
    info: options.info,
    ...(options.servers ? { servers: options.servers } : {}),
    methods: described,
    ...(Object.keys(components).length > 0 ? { components } : {}),
    ...(options.externalDocs ? { externalDocs: options.externalDocs } : {}),
  };
  return options.amend ? await options.amend(document) : document;
}

function isSystem(method: MethodDescription): boolean {
  return method.system === true || method.name.startsWith('rpc.');
}

/**
 * Serves `rpc.discover` on a server: each call answers the OpenRPC document of the methods
 * registered at that moment.
 *
 * @param server - the server
 * @param options - `info` (title, version), `servers`, named schemas, components, the schema
 *   converter, `amend`
 * @returns a function that removes `rpc.discover`
 * @throws TypeError when `rpc.discover` is already registered
 * @example
 * ```ts
 * const server = createServer();
 * server.method('add', ([a, b]: [number, number]) => a + b);
 * openrpc(server, { info: { title: 'Calculator', version: '1.0.0' } });
 * ```
 */
export function openrpc(server: Server, options: OpenRpcOptions): () => void {
  return server.registerSystem(
    'rpc.discover',
    () => createOpenRpcDocument(server.methods(), options),
    {
      description: 'Returns the OpenRPC document of this service.',
    },
  );
}
