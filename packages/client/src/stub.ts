/**
 * Schema-free stubs typed by an interface: `client.stub<Api>()`.
 *
 * @module
 */
import type { JsonRpcParams } from '@jsonrpc-kit/core';
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import { positionalParams } from './arguments.js';

/** Options of `client.stub()`. */
export interface StubOptions {
  /** Prepended to every method name on the wire. @default "" */
  readonly prefix?: string;
}

/**
 * An interface's methods, each returning a promise of its (awaited) result. Members that are
 * not functions are dropped.
 *
 * @example
 * ```ts
 * interface Api { add(a: number, b: number): number }
 * const api: PromisifiedStub<Api> = client.stub<Api>();
 * await api.add(1, 2); // Promise<number>
 * ```
 */
export type PromisifiedStub<T extends object> = {
  readonly [K in keyof T as K extends string
    ? T[K] extends (...args: any[]) => any
      ? K
      : never
    : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/** What a proxy needs from the client. Internal. */
export type ProxyCall = (method: string, params: JsonRpcParams | undefined) => Promise<unknown>;

/** Every name of {@link StubOptions}. */
const STUB_OPTION_NAMES: OptionNames<StubOptions> = { prefix: true };

/**
 * Builds a schema-free stub. Internal: reached through `client.stub()`. Arguments go on the
 * wire by position (`api.add(1, 2)` sends `[1, 2]`); trailing `undefined` arguments are left out,
 * and a call without arguments sends no params.
 * `then` and symbol keys read as `undefined`, so the proxy is not mistaken for a promise.
 *
 * @param call - the client's request function
 * @param options - the prefix
 * @returns the proxy
 */
export function createPromisifiedStub<T extends object>(
  call: ProxyCall,
  options?: StubOptions,
): PromisifiedStub<T> {
  checkOptionNames('client.stub', options, STUB_OPTION_NAMES);
  const prefix = options?.prefix ?? '';
  const cache = new Map<string, Function>();
  return new Proxy(Object.create(null) as object, {
    get(_target, key) {
      if (typeof key !== 'string' || key === 'then') return undefined;
      let fn = cache.get(key);
      if (fn === undefined) {
        const method = prefix + key;
        fn = (...args: unknown[]) => call(method, positionalParams(args));
        cache.set(key, fn);
      }
      return fn;
    },
    has(_target, key) {
      return typeof key === 'string' && key !== 'then';
    },
    set() {
      return false;
    },
    deleteProperty() {
      return false;
    },
  }) as PromisifiedStub<T>;
}
