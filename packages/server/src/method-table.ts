/**
 * The server's method table: entries by name, added one by one or all of a contract at once, and
 * the entries `implement()` makes from a contract.
 *
 * @module
 */
import type { Contract } from '@jsonrpc-kit/core';
import { contractName } from '@jsonrpc-kit/core/engine';
import { type Entry, makeEntry } from './registry.js';
import type { ContractImplementation, ImplementOptions, MethodDescriptor } from './types.js';

/** Registered entries by method name. */
export class MethodTable {
  /** The entries, by name: the dispatcher reads it. */
  readonly entries: Map<string, Entry> = new Map();

  /**
   * Adds one entry.
   *
   * @param entry - the entry
   * @returns removes it again (if it is still the one under its name)
   * @throws TypeError when its name is taken
   */
  add(entry: Entry): () => void {
    const entries = this.entries;
    const name = entry.descriptor.name;
    if (entries.has(name)) throw new TypeError(`Method "${name}" is already registered`);
    entries.set(name, entry);
    return () => {
      if (entries.get(name) === entry) entries.delete(name);
    };
  }

  /**
   * Adds entries all or none.
   *
   * @param list - the entries
   * @returns removes them again
   * @throws TypeError when a name is taken (nothing added)
   */
  addAll(list: readonly Entry[]): () => void {
    for (const entry of list) {
      if (this.entries.has(entry.descriptor.name)) {
        throw new TypeError(`Method "${entry.descriptor.name}" is already registered`);
      }
    }
    const disposers = list.map((entry) => this.add(entry));
    return () => {
      for (const dispose of disposers) dispose();
    };
  }

  /** The descriptors of every entry, in registration order. */
  descriptors(): MethodDescriptor[] {
    return Array.from(this.entries.values(), (entry) => entry.descriptor);
  }
}

/**
 * The entries of a contract's methods and notifications, named as `implement()` names them
 * (subscriptions are served by `createSubscriptions()`).
 *
 * @param contract - the contract
 * @param implementation - a handler per entry
 * @param options - the prefix and the naming
 * @returns one entry per method and notification
 * @throws TypeError when a handler is missing, or `"qualified"` naming meets an unnamed contract
 */
export function contractEntries<C extends Contract>(
  contract: C,
  implementation: ContractImplementation<C>,
  options: ImplementOptions | undefined,
): Entry[] {
  let prefix = options?.prefix ?? '';
  if (options?.naming === 'qualified') {
    const service = contractName(contract);
    if (service === undefined) {
      throw new TypeError(
        'naming "qualified" needs a named contract: defineContract(entries, { name })',
      );
    }
    prefix += service + '.';
  }
  const handlers = implementation as Record<string, unknown>;
  const entries: Entry[] = [];
  for (const [key, definition] of Object.entries(contract)) {
    if (definition.kind === 'subscription') continue;
    const handler = Object.hasOwn(handlers, key) ? handlers[key] : undefined;
    if (typeof handler !== 'function') {
      throw new TypeError(`The implementation has no handler for "${key}"`);
    }
    entries.push(
      makeEntry(
        prefix + key,
        definition.kind,
        handler,
        {
          params: definition.params,
          result: definition.kind === 'method' ? definition.result : undefined,
          paramNames: definition.paramNames,
          description: definition.description,
          docs: definition.docs,
        },
        false,
      ),
    );
  }
  return entries;
}
