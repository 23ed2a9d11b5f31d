/**
 * MCP's resource methods: `resources/list`, `resources/templates/list`, `resources/read`,
 * `resources/subscribe` and `resources/unsubscribe`.
 *
 * @module
 */
import { InvalidParamsError, JsonRpcError } from '@jsonrpc-kit/core';
import { saveClientState } from './client-store.js';
import { CallContext, clientStateOf } from './context.js';
import { defined } from './records.js';
import { RESOURCE_NOT_FOUND } from './server-api.js';
import { type McpServerCore, paramsOf, readResult, stringParam } from './server-core.js';
import type { ResourceInfo } from './types.js';

/**
 * Registers them on the server.
 *
 * @param core - what the server's parts share
 */
export function registerResources(core: McpServerCore): void {
  const { clients, resources, templates, method, page, listed, clientOf, withInput } = core;
  // Resources
  method('resources/list', async (raw, ctx) => {
    const context = new CallContext(ctx, clientOf(ctx, raw), raw);
    const all: ResourceInfo[] = [...resources.values()].map((r) =>
      defined({ uri: r.uri, name: r.name, ...r.definition }),
    );
    for (const t of templates.values()) {
      if (t.definition.list) all.push(...(await t.definition.list(context)));
    }
    const { items, nextCursor } = page(all, paramsOf(raw).cursor);
    return listed({ resources: items }, nextCursor);
  });
  method('resources/templates/list', (raw) => {
    const { items, nextCursor } = page([...templates.values()], paramsOf(raw).cursor);
    return listed(
      {
        resourceTemplates: items.map((t) => {
          const { complete: _complete, list: _list, ...shown } = t.definition;
          return defined({ uriTemplate: t.template.template, name: t.name, ...shown });
        }),
      },
      nextCursor,
    );
  });
  method('resources/read', async (raw, ctx) => {
    const uri = stringParam(paramsOf(raw), 'uri');
    const resource = resources.get(uri);
    if (resource !== undefined) {
      return withInput(raw, ctx, `resources/read ${uri}`, async (c) =>
        readResult(await resource.handler(uri, c), uri, resource.definition.mimeType),
      );
    }
    for (const t of templates.values()) {
      const variables = t.template.match(uri);
      if (variables !== undefined) {
        return withInput(raw, ctx, `resources/read ${uri}`, async (c) =>
          readResult(await t.handler(uri, variables, c), uri, t.definition.mimeType),
        );
      }
    }
    if (clientOf(ctx, raw).stateless) {
      // 2026-07-28 (SEP-2164): an unknown resource is invalid params.
      throw new InvalidParamsError(`Resource not found: ${uri}`, { uri });
    }
    throw new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  });
  method('resources/subscribe', async (raw, ctx) => {
    const uri = stringParam(paramsOf(raw), 'uri');
    const state = clientStateOf(ctx);
    (state.subscriptions ??= new Set()).add(uri);
    await saveClientState(ctx, clients, state);
    return {};
  });
  method('resources/unsubscribe', async (raw, ctx) => {
    const uri = stringParam(paramsOf(raw), 'uri');
    const state = clientStateOf(ctx);
    state.subscriptions?.delete(uri);
    await saveClientState(ctx, clients, state);
    return {};
  });
}
