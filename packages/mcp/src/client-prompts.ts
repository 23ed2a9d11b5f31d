/**
 * The MCP client's prompt methods: `prompts/list` and `prompts/get`.
 *
 * @module
 */
import type { McpClient } from './client-api.js';
import { cursorParams, listAll, type McpClientCore } from './client-core.js';

/** The prompt methods of a client. */
type PromptMethods = Pick<McpClient, 'listPrompts' | 'listAllPrompts' | 'getPrompt'>;

/**
 * The prompt methods of a client.
 *
 * @param core - what the client's parts share
 * @returns `listPrompts`, `listAllPrompts` and `getPrompt`
 */
export function promptMethods(core: McpClientCore): PromptMethods {
  const { call } = core;
  const methods: PromptMethods = {
    listPrompts: (cursor, callOptions) => call('prompts/list', cursorParams(cursor), callOptions),
    listAllPrompts: (callOptions) =>
      listAll('prompts/list', 'prompts', (cursor) => methods.listPrompts(cursor, callOptions)),
    getPrompt: (name, args, callOptions) =>
      call('prompts/get', args === undefined ? { name } : { name, arguments: args }, callOptions),
  };
  return methods;
}
