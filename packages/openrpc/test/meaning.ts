/**
 * What an OpenRPC document means, for comparing a served `rpc.discover` with its source: every
 * `$ref` followed, OpenRPC's defaults written out. Test support only.
 *
 * @module
 */
import type { Contract } from '@jsonrpc-kit/core';
import { type OpenRpcOptions, openrpc } from '@jsonrpc-kit/extensions/openrpc';
import { createServer } from '@jsonrpc-kit/server';
import { resolveRef } from '../src/pointer.js';

/** Every `$ref` replaced by its target, except those that would loop. */
export function dereference(root: unknown, node: unknown, stack: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(root, item, stack));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (stack.includes(ref)) return { $ref: ref };
    return dereference(root, resolveRef(root, ref), [...stack, ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(root, v, stack)]));
}

export type Method = Record<string, unknown> & { params: Record<string, unknown>[] };

/** What a document says, dereferenced, with OpenRPC's defaults written out. */
export function meaning(document: Record<string, unknown>): unknown {
  const d = dereference(document, document) as Record<string, unknown>;
  return {
    info: d.info,
    servers: d.servers,
    externalDocs: d.externalDocs,
    methods: (d.methods as Method[]).map((m) => {
      const { 'x-notification': _notification, ...rest } = m;
      return {
        ...rest,
        paramStructure: m.paramStructure ?? 'either',
        params: m.params.map((p) => ({ ...p, required: p.required ?? false })),
      };
    }),
  };
}

export async function discover(contract: Contract, options: OpenRpcOptions): Promise<unknown> {
  const server = createServer();
  const failing = () => {
    throw new Error('not implemented');
  };
  server.implement(
    contract,
    Object.fromEntries(Object.keys(contract).map((k) => [k, failing])) as never,
  );
  openrpc(server, options);
  const text = await server.handle('{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}');
  return (JSON.parse(text!) as { result: unknown }).result;
}
