/**
 * How a proxy call's arguments become params: a trailing `undefined` is an argument left out, so
 * it is dropped (the schema's default or optional applies on the other side, never `null`), and a
 * call with nothing left sends no params at all.
 *
 * @module
 */
import type { JsonRpcParams } from '@jsonrpc-kit/core';

/**
 * Positional params from a call's arguments: trailing `undefined` dropped; none left, no params.
 *
 * @param args - the arguments, in order
 * @returns the params array, or `undefined` when there are none
 */
export function positionalParams(args: readonly unknown[]): unknown[] | undefined {
  let length = args.length;
  while (length > 0 && args[length - 1] === undefined) length--;
  if (length === 0) return undefined;
  return length === args.length ? (args as unknown[]) : args.slice(0, length);
}

/**
 * Named params from a call's arguments, by parameter names: `undefined` arguments have no member;
 * none left, no params.
 *
 * @param names - the parameter names in order
 * @param args - the arguments, in order
 * @returns the params object, or `undefined` when there are none
 */
export function namedParams(
  names: readonly string[],
  args: readonly unknown[],
): Record<string, unknown> | undefined {
  let params: Record<string, unknown> | undefined;
  for (let i = 0; i < names.length && i < args.length; i++) {
    if (args[i] !== undefined) (params ??= {})[names[i]!] = args[i];
  }
  return params;
}

/**
 * Positional params from a params object, in the order of the parameter names.
 *
 * @param names - the parameter names in order
 * @param params - the params object, or `undefined`
 * @returns the params array, or `undefined` when there are none
 */
export function orderedParams(
  names: readonly string[],
  params: JsonRpcParams | undefined,
): unknown[] | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const record = params as Record<string, unknown>;
  return positionalParams(names.map((name) => record[name]));
}
