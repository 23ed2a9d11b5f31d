/**
 * MCP's `completion/complete`: the completer of a prompt's argument or a template's variable.
 *
 * @module
 */
import { InvalidParamsError } from '@jsonrpc-kit/core';
import type { Completer } from './definitions.js';
import { isRecord } from './records.js';
import { MAX_COMPLETION_VALUES } from './server-api.js';
import { type McpServerCore, paramsOf, stringParam } from './server-core.js';

/**
 * Registers them on the server.
 *
 * @param core - what the server's parts share
 */
export function registerCompletions(core: McpServerCore): void {
  const { prompts, resources, templates, method } = core;
  // Completions
  method('completion/complete', async (raw) => {
    const params = paramsOf(raw);
    const ref = params.ref;
    const argument = params.argument;
    if (!isRecord(ref) || !isRecord(argument)) {
      throw new InvalidParamsError('"ref" and "argument" must be objects');
    }
    const argName = stringParam(argument, 'name');
    const value = typeof argument.value === 'string' ? argument.value : '';
    let complete: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const name = stringParam(ref, 'name');
      const prompt = prompts.get(name);
      if (prompt === undefined) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
      complete = prompt.definition.complete?.[argName];
    } else if (ref.type === 'ref/resource') {
      const uri = stringParam(ref, 'uri');
      const template = templates.get(uri);
      if (template === undefined && !resources.has(uri)) {
        throw new InvalidParamsError(`Unknown resource template: ${uri}`, { uri });
      }
      complete = template?.definition.complete?.[argName];
    } else {
      throw new InvalidParamsError('"ref.type" must be "ref/prompt" or "ref/resource"');
    }
    const context =
      isRecord(params.context) && isRecord(params.context.arguments)
        ? (params.context.arguments as Record<string, string>)
        : {};
    const values = complete === undefined ? [] : await complete(value, { arguments: context });
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES),
        total: values.length,
        hasMore: values.length > MAX_COMPLETION_VALUES,
      },
    };
  });
}
