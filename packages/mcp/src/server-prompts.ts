/**
 * MCP's prompt methods: `prompts/list` and `prompts/get`.
 *
 * @module
 */
import { InvalidParamsError, type StandardSchemaV1 } from '@jsonrpc-kit/core';
import { formatIssues, validate } from '@jsonrpc-kit/core/engine';
import type { PromptArgs } from './definitions.js';
import { objectJsonSchema } from './json-schema.js';
import { defined, isRecord } from './records.js';
import {
  issuesText,
  type McpServerCore,
  type PromptEntry,
  paramsOf,
  promptResult,
  stringParam,
} from './server-core.js';

/**
 * Registers them on the server.
 *
 * @param core - what the server's parts share
 */
export function registerPrompts(core: McpServerCore): void {
  const { prompts, method, page, listed, withInput } = core;
  // Prompts
  const listPrompt = (prompt: PromptEntry): Promise<Record<string, unknown>> => {
    prompt.listed ??= (async () => {
      const { title, description, args, _meta } = prompt.definition;
      let argumentsShown: readonly Record<string, unknown>[] | undefined;
      if (Array.isArray(args)) argumentsShown = args as readonly Record<string, unknown>[];
      else if (args !== undefined) {
        const schema = await objectJsonSchema(args as StandardSchemaV1, 'input');
        const properties = isRecord(schema.properties) ? schema.properties : {};
        const required = Array.isArray(schema.required) ? schema.required : [];
        argumentsShown = Object.entries(properties).map(([name, property]) =>
          defined({
            name,
            title: isRecord(property) ? (property.title as string | undefined) : undefined,
            description: isRecord(property)
              ? (property.description as string | undefined)
              : undefined,
            required: required.includes(name),
          }),
        );
      }
      return defined({ name: prompt.name, title, description, arguments: argumentsShown, _meta });
    })();
    return prompt.listed;
  };
  method('prompts/list', async (raw) => {
    const { items, nextCursor } = page([...prompts.values()], paramsOf(raw).cursor);
    return listed({ prompts: await Promise.all(items.map(listPrompt)) }, nextCursor);
  });
  method('prompts/get', async (raw, ctx) => {
    const params = paramsOf(raw);
    const name = stringParam(params, 'name');
    const prompt = prompts.get(name);
    if (prompt === undefined) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
    const given = params.arguments ?? {};
    if (!isRecord(given)) throw new InvalidParamsError('"arguments" must be an object');
    let args: unknown = given;
    const schema = prompt.definition.args;
    if (Array.isArray(schema)) {
      const missing = (schema as PromptArgs as { name: string; required?: boolean }[])
        .filter((arg) => arg.required && typeof given[arg.name] !== 'string')
        .map((arg) => arg.name);
      if (missing.length > 0) {
        throw new InvalidParamsError(`Missing arguments: ${missing.join(', ')}`, { missing });
      }
    } else if (schema !== undefined) {
      const verdict = await validate(schema as StandardSchemaV1, given);
      if (verdict.issues) {
        throw new InvalidParamsError(
          `Invalid arguments for prompt ${name}: ${issuesText(verdict.issues)}`,
          formatIssues(verdict.issues),
        );
      }
      args = verdict.value;
    }
    return withInput(raw, ctx, `prompts/get ${name} ${JSON.stringify(given)}`, async (c) =>
      promptResult(await prompt.handler(args, c), prompt.definition.description),
    );
  });
}
