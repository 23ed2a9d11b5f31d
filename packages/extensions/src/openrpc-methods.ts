/**
 * The method objects of an OpenRPC document: a method's params (by name, by position, or the
 * whole schema), its result, and its docs written over them.
 *
 * @module
 */
import type { ContentDescriptorDocs } from '@jsonrpc-kit/core';
import type { JsonSchema } from './json-schema.js';
import type { SchemaStore } from './openrpc-schemas.js';
import type {
  MethodDescription,
  OpenRpcContentDescriptor,
  OpenRpcMethod,
} from './openrpc-types.js';

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

function tupleItems(schema: JsonSchema): readonly JsonSchema[] | undefined {
  if (schema.type !== 'array') return undefined;
  const items = Array.isArray(schema.prefixItems) ? schema.prefixItems : schema.items;
  return Array.isArray(items) ? (items as JsonSchema[]) : undefined;
}

function withDocs(
  described: OpenRpcContentDescriptor | undefined,
  docs: ContentDescriptorDocs | undefined,
): OpenRpcContentDescriptor | undefined {
  if (docs === undefined) return described;
  return { ...described, ...docs, schema: docs.schema ?? described?.schema ?? {} };
}

/**
 * The method object of a method or notification.
 *
 * @param entry - what is known of it
 * @param store - where its schemas' `$defs` go
 * @returns the method object
 */
export async function describeMethod(
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
