/**
 * OpenRPC service discovery: an OpenRPC 1.3.2 document generated from a server's registry (or
 * from contracts), served as `rpc.discover`.
 *
 * @module
 */
import type { Contract, StandardSchemaV1 } from '@jsonrpc-kit/core';
import type { Server } from '@jsonrpc-kit/server';
import {
  defaultJsonSchemaConverter,
  type JsonSchema,
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
  return Object.entries(contract).map(([name, entry]) => ({
    name: prefix + name,
    kind: entry.kind,
    params: entry.params,
    result: entry.kind === 'method' ? entry.result : undefined,
    paramNames: entry.paramNames,
    description: entry.description,
  }));
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

function tupleItems(schema: JsonSchema): readonly JsonSchema[] | undefined {
  if (schema.type !== 'array') return undefined;
  const items = Array.isArray(schema.prefixItems) ? schema.prefixItems : schema.items;
  return Array.isArray(items) ? (items as JsonSchema[]) : undefined;
}

async function convert(
  converter: JsonSchemaConverter,
  schema: StandardSchemaV1 | undefined,
  io: 'input' | 'output',
): Promise<JsonSchema | undefined> {
  return schema === undefined ? undefined : await converter(schema, io);
}

async function describeMethod(
  entry: MethodDescription,
  converter: JsonSchemaConverter,
): Promise<OpenRpcMethod> {
  const paramsSchema = await convert(converter, entry.params, 'input');
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
  const method: {
    -readonly [K in keyof OpenRpcMethod]: OpenRpcMethod[K];
  } = { name: entry.name, paramStructure, params };
  if (entry.description !== undefined) method.description = entry.description;
  if (entry.kind === 'notification') {
    method['x-notification'] = true;
  } else {
    const result = await convert(converter, entry.result, 'output');
    method.result = { name: 'result', schema: result ?? {} };
  }
  if (extra) method['x-params-schema'] = extra;
  return method;
}

/**
 * Builds an OpenRPC 1.3.2 document from method descriptions (`server.methods()` or
 * {@link describeContract}). Methods with known parameter names are `"either"` (the server accepts
 * them by name and by position); tuple schemas without names are `"by-position"`. Notifications
 * carry `"x-notification": true` and no `result`.
 *
 * @param methods - the methods to describe
 * @param options - `info`, `servers`, the schema converter
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
  const listed = options.includeSystem ? methods : methods.filter((m) => !isSystem(m));
  const described = await Promise.all(listed.map((m) => describeMethod(m, converter)));
  return {
    openrpc: OPENRPC_VERSION,
    info: options.info,
    ...(options.servers ? { servers: options.servers } : {}),
    methods: described,
  };
}

function isSystem(method: MethodDescription): boolean {
  return method.system === true || method.name.startsWith('rpc.');
}

/**
 * Serves `rpc.discover` on a server: each call answers the OpenRPC document of the methods
 * registered at that moment.
 *
 * @param server - the server
 * @param options - `info` (title, version), `servers`, the schema converter
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
