/**
 * The client's local checks on a call: the method name and params refused before the wire, ids
 * from `generateId` checked, and results checked against their schema; and the call record the
 * client middleware sees.
 *
 * @module
 */
import type {
  CallInfo,
  JsonRpcId,
  JsonRpcParams,
  RequestOptions,
  StandardSchemaV1,
} from '@jsonrpc-kit/core';
import {
  formatIssues,
  isPromiseLike,
  type StandardSchemaResult,
  validate,
} from '@jsonrpc-kit/core/engine';
import { ResultValidationError } from './errors.js';
import type { ClientCall } from './types.js';

/** Refuses locally what must not reach the wire: a blank method name, params that are not structured. */
export function checkCall(method: unknown, params: unknown): void {
  if (typeof method !== 'string' || method.trim().length === 0) {
    throw new TypeError(`A method name must be a non-blank string, got ${JSON.stringify(method)}`);
  }
  if (params !== undefined && (typeof params !== 'object' || params === null)) {
    throw new TypeError(
      `The params of "${method}" must be an array (by position) or an object (by name), got ${
        params === null ? 'null' : typeof params
      }`,
    );
  }
}

/** Wraps `generateId` so that an id that is not a string or a finite number is refused locally. */
export function checkedIds(
  generateId: (() => JsonRpcId) | undefined,
): (() => JsonRpcId) | undefined {
  if (generateId === undefined) return undefined;
  return () => {
    const id = generateId();
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
      throw new TypeError(
        `generateId must return a string or a finite number, got ${id === null ? 'null' : typeof id}`,
      );
    }
    return id;
  };
}

/** The call record the client middleware sees, its `state` made on first use. */
export function newCall(
  kind: ClientCall['kind'],
  method: string,
  params: JsonRpcParams | undefined,
  options: RequestOptions,
): ClientCall {
  let state: Map<string | symbol, unknown> | undefined;
  return {
    kind,
    method,
    params,
    options,
    get state() {
      state ??= new Map();
      return state;
    },
  };
}

/** Checks a result against its schema: the value, or a `ResultValidationError`. */
export function checkResult(
  schema: StandardSchemaV1,
  value: unknown,
  call: CallInfo,
): unknown | Promise<unknown> {
  const finish = (result: StandardSchemaResult<unknown>): unknown => {
    if (result.issues !== undefined) {
      throw new ResultValidationError(formatIssues(result.issues), value, call);
    }
    return result.value;
  };
  const verdict = validate(schema, value);
  return isPromiseLike(verdict) ? verdict.then(finish) : finish(verdict);
}
