/**
 * Reading an OpenRPC document's methods: reference objects followed, params and results checked,
 * and each method's documentation gathered for the contract (`docs`).
 *
 * @module
 */
import type { ContentDescriptorDocs, MethodDocs } from '@jsonrpc-kit/core';
import { follow } from './pointer.js';
import type { JsonSchema } from './valibot-code.js';

/** An OpenRPC document, as parsed from JSON or YAML (checked as it is read). */
export type OpenRpcDocumentInput = { readonly [key: string]: unknown };

/** A content descriptor (a param or a result), references followed. */
export interface ReadContentDescriptor {
  /** Its name. */
  readonly name: string;
  /** Whether it must be given (`false` when the document does not say). */
  readonly required: boolean;
  /** Its JSON Schema (`{}` when the document gives none). */
  readonly schema: JsonSchema;
  /** The descriptor as the contract's docs carry it. */
  readonly docs: ContentDescriptorDocs;
}

/** A method of the document, references followed. */
export interface ReadMethod {
  /** The method's name. */
  readonly name: string;
  /** Its description. */
  readonly description: string | undefined;
  /** `by-name`, `by-position` or `either` (the default). */
  readonly paramStructure: 'by-name' | 'by-position' | 'either';
  /** The params, in order. */
  readonly params: readonly ReadContentDescriptor[];
  /** The result; `undefined` for a notification. */
  readonly result: ReadContentDescriptor | undefined;
  /** Everything else the method object says. */
  readonly docs: MethodDocs;
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Follows every reference object of a value that is not a schema (tags, errors, examples, links):
 * the published document then says the same without its `components` of those kinds.
 */
function resolveAll(document: unknown, value: unknown): unknown {
  const node = follow(document, value);
  if (Array.isArray(node)) return node.map((item) => resolveAll(document, item));
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveAll(document, v)]));
}

function readDescriptor(
  document: unknown,
  value: unknown,
  where: string,
  param: boolean,
): ReadContentDescriptor {
  const descriptor = follow(document, value);
  if (!isObject(descriptor) || typeof descriptor.name !== 'string') {
    throw new TypeError(`${where}: a content descriptor needs a name`);
  }
  const schema = (descriptor.schema ?? {}) as JsonSchema;
  const docs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(descriptor)) {
    docs[k] = k === 'schema' ? v : resolveAll(document, v);
  }
  // A param's `required` defaults to false: say it, so no reader guesses otherwise.
  if (param) docs.required = descriptor.required === true;
  return {
    name: descriptor.name,
    required: descriptor.required === true,
    schema,
    docs: docs as ContentDescriptorDocs,
  };
}

/**
 * Checks an OpenRPC document and reads its methods.
 *
 * @param document - the parsed (and bundled) document
 * @returns its methods, references followed
 * @throws TypeError when the document has no `openrpc` version or `methods`, a method has no
 *   name, or a name is repeated
 * @throws Error when a reference does not resolve
 */
export function readMethods(document: OpenRpcDocumentInput): ReadMethod[] {
  if (!isObject(document) || typeof document.openrpc !== 'string') {
    throw new TypeError('Not an OpenRPC document: no "openrpc" version');
  }
  if (!Array.isArray(document.methods)) {
    throw new TypeError('Not an OpenRPC document: no "methods" array');
  }
  const seen = new Set<string>();
  return document.methods.map((value, index) => {
    const method = follow(document, value);
    if (!isObject(method) || typeof method.name !== 'string' || method.name === '') {
      throw new TypeError(`Method ${index} has no name`);
    }
    const name = method.name;
    if (seen.has(name)) throw new TypeError(`Method "${name}" is described twice`);
    seen.add(name);
    const params = (Array.isArray(method.params) ? method.params : []).map((p, i) =>
      readDescriptor(document, p, `Method "${name}", param ${i}`, true),
    );
    const names = new Set(params.map((p) => p.name));
    if (names.size !== params.length) throw new TypeError(`Method "${name}" repeats a param name`);
    const result =
      method.result === undefined
        ? undefined
        : readDescriptor(document, method.result, `Method "${name}", result`, false);
    const structure = method.paramStructure;
    const paramStructure =
      structure === 'by-name' || structure === 'by-position' ? structure : 'either';
    const docs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(method)) {
      if (k === 'name' || k === 'description') continue;
      if (k === 'params') docs.params = params.map((p) => p.docs);
      else if (k === 'result') docs.result = result?.docs;
      else docs[k] = resolveAll(document, v);
    }
    if (docs.params === undefined) docs.params = [];
    return {
      name,
      description: typeof method.description === 'string' ? method.description : undefined,
      paramStructure,
      params,
      result,
      docs: docs as MethodDocs,
    };
  });
}
