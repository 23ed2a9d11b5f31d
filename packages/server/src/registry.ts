/**
 * The method registry: a `Map` (never an object, so no name reaches `Object.prototype`), with the
 * rules for names and the mapping of positional params to names.
 *
 * @module
 */
import { InvalidParamsError, paramNamesOf, type StandardSchemaV1 } from '@jsonrpc-kit/core';
import type { MethodDescriptor } from './types.js';

/** A registered method or notification. */
export interface Entry {
  readonly handler: (params: any, ctx: any) => unknown;
  readonly schema: StandardSchemaV1 | undefined;
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
 * @throws TypeError on a bad name or handler
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
  const schema = options?.params;
  const paramNames = options?.paramNames ?? paramNamesOf(schema);
  const timeout = options?.timeout;
  if (timeout !== undefined && !(timeout >= 0)) {
    throw new TypeError(`The timeout of "${name}" must be a number >= 0`);
  }
  return {
    handler: handler as Entry['handler'],
    schema,
    paramNames,
    timeout,
    descriptor: Object.freeze({
      name,
      kind,
      params: schema,
      result: kind === 'method' ? options?.result : undefined,
      paramNames,
      description: options?.description,
      system,
    }),
  };
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
  if (length > names.length) {
    throw new InvalidParamsError(
      `Invalid params: expected at most ${names.length} positional params, got ${length}`,
    );
  }
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
