/**
 * The MCP client's tool methods: `tools/list` (keeping each tool's output schema, leaving out a
 * tool with an invalid `x-mcp-header`) and `tools/call` (its `structuredContent` checked against
 * that schema).
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { ProtocolError } from '@jsonrpc-kit/core';
import type { McpCallOptions, McpClient } from './client-api.js';
import { cursorParams, listAll, type McpClientCore } from './client-core.js';
import { toolHeaderNames } from './client-http.js';
import type { JsonSchemaObject, ListToolsResult } from './client-types.js';
import { isRecord } from './records.js';
import type { CallToolResult } from './types.js';

/**
 * The tool methods of a client.
 *
 * @param core - what the client's parts share
 * @returns `listTools`, `listAllTools` and `callTool`
 */
export function toolMethods(
  core: McpClientCore,
): Pick<McpClient, 'listTools' | 'listAllTools' | 'callTool'> {
  const { options, call } = core;
  const validate = options.validateOutput !== false;
  /** Output-schema validators of the tools listed, by name. */
  const outputSchemas = new Map<string, JsonSchemaObject>();
  const validators = new Map<string, Validator>();

  const checkOutput = (name: string, result: CallToolResult<unknown>): void => {
    const schema = outputSchemas.get(name);
    if (!validate || schema === undefined || result.isError === true) return;
    if (result.structuredContent === undefined) {
      throw new ProtocolError(
        `tools/call ${name}: the tool has an output schema but the result has no structuredContent`,
        result,
      );
    }
    let validator = validators.get(name);
    if (validator === undefined) {
      validator = new Validator(schema as Record<string, never>, '2020-12', false);
      validators.set(name, validator);
    }
    const outcome = validator.validate(result.structuredContent);
    if (!outcome.valid) {
      const reasons = outcome.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join('; ');
      throw new ProtocolError(
        `tools/call ${name}: structuredContent breaks the output schema (${reasons})`,
        result,
      );
    }
  };

  const methods: Pick<McpClient, 'listTools' | 'listAllTools' | 'callTool'> = {
    async listTools(cursor, callOptions) {
      const listed = await call<ListToolsResult>('tools/list', cursorParams(cursor), callOptions);
      // A tool with an invalid `x-mcp-header` must not be used (SEP-2243): it is left out.
      const tools = (listed.tools ?? []).filter((tool) => toolHeaderNames(tool) !== undefined);
      const result = tools.length === listed.tools?.length ? listed : { ...listed, tools };
      options.http?.observeTools(tools);
      for (const tool of tools) {
        validators.delete(tool.name);
        if (isRecord(tool.outputSchema)) outputSchemas.set(tool.name, tool.outputSchema);
        else outputSchemas.delete(tool.name);
      }
      return result;
    },
    listAllTools: (callOptions) =>
      listAll('tools/list', 'tools', (cursor) => methods.listTools(cursor, callOptions)),
    async callTool<S>(
      name: string,
      args?: Readonly<Record<string, unknown>>,
      callOptions?: McpCallOptions,
    ): Promise<CallToolResult<S>> {
      const result = await call<CallToolResult<S>>(
        'tools/call',
        { name, arguments: args ?? {} },
        callOptions,
      );
      checkOutput(name, result as CallToolResult<unknown>);
      return result;
    },
  };
  return methods;
}
