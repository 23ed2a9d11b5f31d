/**
 * The method registry: a `Map` (never an object, so no name reaches `Object.prototype`), with the
 * rules for names and the mapping of positional params to names.
 *
 * @module
 */
import type { MethodDocs } from '@jsonrpc-kit/core';
import { InvalidParamsError, type StandardSchemaV1 } from '@jsonrpc-kit/core';
import {
  checkParamNames,
  checkSchema,
  type ParamsShape,
  paramNamesOf,
  paramsShapeOf,
} from '@jsonrpc-kit/core/engine';
import type { MethodDescriptor } from './types.js';

/** A registered method or notification. */
export interface Entry {
  readonly handler: (params: any, ctx: any) => unknown;
  readonly kind: 'method' | 'notification';
  readonly schema: StandardSchemaV1 | undefined;
  /** How the schema takes params: absent params are its empty value, names map to it. */
  readonly shape: ParamsShape | undefined;
  readonly paramNames: readonly string[] | undefined;
  readonly timeout: number | undefined;
  readonly descriptor: MethodDescriptor;
}

/** Options common to every kind of registration. */
export interface EntryOptions {
  readonly params?: StandardSchemaV1 | undefined;
  readonly result?: StandardSchemaV1 | undefined;
  readonly paramNames?: readonly string[] | undefined;
  readonly timeout?: number | undefined;
  readonly description?: string | undefined;
  readonly docs?: MethodDocs | undefined;
}

/** The prefix reserved for system methods. */
export const SYSTEM_PREFIX = 'rpc.';

/**
 * Builds an entry, checking the name and the handler.
 *
 * @param name - the name
 * @param kind - method or notification
 * @param handler - the handler
 * @param options - schemas and the rest
 * @param system - whether the name must be (`true`) or must not be (`false`) an `rpc.` name
 * @returns the entry
 * @throws TypeError on a bad name, handler, timeout or parameter names (empty or repeated), or
 *   a `params` or `result` that is not a Standard Schema
 */
export function makeEntry(
  name: string,
  kind: 'method' | 'notification',
  handler: unknown,
  options: EntryOptions | undefined,
  system: boolean,
): Entry {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError('A method name must be a non-empty string');
  }
  if (system && !name.startsWith(SYSTEM_PREFIX)) {
    throw new TypeError(`System method "${name}" must start with "${SYSTEM_PREFIX}"`);
  }
  if (!system && name.startsWith(SYSTEM_PREFIX)) {
    throw new TypeError(
      `Method "${name}": names starting with "${SYSTEM_PREFIX}" are reserved for system extensions (use registerSystem)`,
    );
  }
  if (typeof handler !== 'function') {
    throw new TypeError(`The handler of "${name}" must be a function`);
  }
  const owner = `${kind === 'method' ? 'Method' : 'Notification'} "${name}"`;
  const schema = checkSchema(options?.params, `${owner}: params`);
  const result = kind === 'method' ? checkSchema(options?.result, `${owner}: result`) : undefined;
  const paramNames =
    checkParamNames(options?.paramNames, `Method "${name}"`) ?? paramNamesOf(schema);
  const timeout = options?.timeout;
  if (timeout !== undefined && !(timeout >= 0)) {
    throw new TypeError(`The timeout of "${name}" must be a number >= 0`);
  }
  return {
    handler: handler as Entry['handler'],
    kind,
    schema,
    shape: paramsShapeOf(schema),
    paramNames,
    timeout,
    descriptor: Object.freeze({
      name,
      kind,
      params: schema,
      result,
      paramNames,
      description: options?.description,
      ...(options?.docs === undefined ? {} : { docs: options.docs }),
      system,
    }),
  };
}

function tooMany(names: readonly string[], params: readonly unknown[]): InvalidParamsError {
  return new InvalidParamsError(
    `Invalid params: expected at most ${names.length} positional params, got ${params.length}`,
  );
}

/**
 * Maps positional params to an object by the method's parameter names.
 *
 * @param names - the parameter names in order
 * @param params - the positional params
 * @returns the params by name
 * @throws InvalidParamsError (-32602) when there are more params than names
 */
export function paramsByName(
  names: readonly string[],
  params: readonly unknown[],
): Record<string, unknown> {
  const length = params.length;
  if (length > names.length) throw tooMany(names, params);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < length; i++) {
    const name = names[i]!;
    if (name === '__proto__') {
      Object.defineProperty(out, name, {
        value: params[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[name] = params[i];
  }
  return out;
}

/**
 * Maps params by name to the positions of a positional schema, by the method's parameter names.
 * Names left out become `undefined`, and trailing ones are dropped, so optional items apply.
 *
 * @param names - the parameter names in order
 * @param params - the params by name
 * @returns the positional params
 * @throws InvalidParamsError (-32602) for a name the method does not declare
 */
export function paramsByPosition(
  names: readonly string[],
  params: Readonly<Record<string, unknown>>,
): unknown[] {
  for (const key of Object.keys(params)) {
    if (!names.includes(key)) {
      throw new InvalidParamsError(`Invalid params: unknown parameter "${key}"`);
    }
  }
  const out: unknown[] = [];
  for (let i = 0; i < names.length; i++) {
    if (Object.hasOwn(params, names[i]!)) out[i] = params[names[i]!];
  }
  // Holes become `undefined`: a dense array, as if sent by position.
  return Array.from(out);
}

/**
 * The params a method's handler chain validates: absent params become the empty value of the
 * schema's shape (`[]` or `{}`), and params come in the schema's shape whichever way they were sent
 * (positional to named by the parameter names, or named to positional for a tuple schema).
 *
 * @param entry - the method
 * @param params - the params as received
 * @returns the params to validate
 * @throws InvalidParamsError (-32602) when they cannot be mapped
 */
export function arrangeParams(entry: Entry, params: unknown): unknown {
  if (params === undefined) {
    const shape = entry.shape;
    return shape === undefined ? undefined : shape === 'byName' ? {} : [];
  }
  const names = entry.paramNames;
  if (names === undefined) return params;
  if (Array.isArray(params)) {
    if (entry.shape !== 'byPosition') return paramsByName(names, params);
    if (params.length > names.length) throw tooMany(names, params);
    return params;
  }
  return entry.shape === 'byPosition' && typeof params === 'object' && params !== null
    ? paramsByPosition(names, params as Record<string, unknown>)
    : params;
}
