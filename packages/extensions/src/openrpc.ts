/**
 * OpenRPC service discovery: an OpenRPC 1.3.2 document generated from a server's registry (or
 * from contracts), served as `rpc.discover`. The document's shapes are in `openrpc-types.ts`, its
 * method objects are made in `openrpc-methods.ts` and its schemas in `openrpc-schemas.ts`.
 *
 * @module
 */
import type { Contract } from '@jsonrpc-kit/core';
import type { Server } from '@jsonrpc-kit/server';
import { defaultJsonSchemaConverter, type JsonSchemaContext } from './json-schema.js';
import { describeMethod } from './openrpc-methods.js';
import { SchemaStore } from './openrpc-schemas.js';
import {
  type MethodDescription,
  OPENRPC_VERSION,
  type OpenRpcDocument,
  type OpenRpcMethod,
  type OpenRpcOptions,
} from './openrpc-types.js';

export {
  type MethodDescription,
  OPENRPC_VERSION,
  type OpenRpcComponents,
  type OpenRpcContentDescriptor,
  type OpenRpcDocument,
  type OpenRpcInfo,
  type OpenRpcMethod,
  type OpenRpcOptions,
  type OpenRpcServer,
  type OpenRpcServerVariable,
} from './openrpc-types.js';

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
