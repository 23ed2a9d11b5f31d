/**
 * The MCP client's resource methods: `resources/list`, `resources/templates/list`,
 * `resources/read`, `resources/subscribe` and `resources/unsubscribe`.
 *
 * @module
 */
import type { McpClient } from './client-api.js';
import { cursorParams, listAll, type McpClientCore } from './client-core.js';

/** The resource methods of a client. */
type ResourceMethods = Pick<
  McpClient,
  | 'listResources'
  | 'listAllResources'
  | 'listResourceTemplates'
  | 'listAllResourceTemplates'
  | 'readResource'
  | 'subscribeResource'
  | 'unsubscribeResource'
>;

/**
 * The resource methods of a client.
 *
 * @param core - what the client's parts share
 * @returns the resource and template methods
 */
export function resourceMethods(core: McpClientCore): ResourceMethods {
  const { call } = core;
  const methods: ResourceMethods = {
    listResources: (cursor, callOptions) =>
      call('resources/list', cursorParams(cursor), callOptions),
    listAllResources: (callOptions) =>
      listAll('resources/list', 'resources', (cursor) =>
        methods.listResources(cursor, callOptions),
      ),
    listResourceTemplates: (cursor, callOptions) =>
      call('resources/templates/list', cursorParams(cursor), callOptions),
    listAllResourceTemplates: (callOptions) =>
      listAll('resources/templates/list', 'resourceTemplates', (cursor) =>
        methods.listResourceTemplates(cursor, callOptions),
      ),
    readResource: (uri, callOptions) => call('resources/read', { uri }, callOptions),
    async subscribeResource(uri, callOptions) {
      await call('resources/subscribe', { uri }, callOptions);
    },
    async unsubscribeResource(uri, callOptions) {
      await call('resources/unsubscribe', { uri }, callOptions);
    },
  };
  return methods;
}
