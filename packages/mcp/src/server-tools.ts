/**
 * MCP's tool methods: `tools/list` and `tools/call`.
 *
 * @module
 */
import { InvalidParamsError, JsonRpcError } from '@jsonrpc-kit/core';
import { isStandardSchema, validate } from '@jsonrpc-kit/core/engine';
import type { ToolReturn } from './definitions.js';
import { objectJsonSchema } from './json-schema.js';
import {
  defined,
  errorResult,
  isRecord,
  issuesText,
  type McpServerCore,
  paramsOf,
  stringParam,
  type ToolEntry,
} from './server-core.js';
import type { CallToolResult, Content } from './types.js';

/**
 * Registers them on the server.
 *
 * @param core - what the server's parts share
 * @returns what `tools/list` shows of a tool (made once per tool)
 */
export function registerTools(
  core: McpServerCore,
): (tool: ToolEntry) => Promise<Record<string, unknown>> {
  const { tools, method, page, listed, withInput } = core;
  // Tools
  const listTool = (tool: ToolEntry): Promise<Record<string, unknown>> => {
    tool.listed ??= (async () => {
      const { title, description, input, output, annotations, _meta } = tool.definition;
      return defined({
        name: tool.name,
        title,
        description,
        inputSchema: await objectJsonSchema(input, 'input'),
        outputSchema: output === undefined ? undefined : await objectJsonSchema(output, 'output'),
        annotations,
        _meta,
      });
    })();
    return tool.listed;
  };
  method('tools/list', async (raw) => {
    const { items, nextCursor } = page([...tools.values()], paramsOf(raw).cursor);
    return listed({ tools: await Promise.all(items.map(listTool)) }, nextCursor);
  });
  const toolResult = async (tool: ToolEntry, value: ToolReturn<unknown>) => {
    if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
    if (Array.isArray(value)) return { content: value as readonly Content[] };
    const result = value as CallToolResult<unknown> & { content?: readonly Content[] };
    const output = tool.definition.output;
    let structured = result.structuredContent;
    if (output !== undefined && result.isError !== true) {
      if (structured === undefined) {
        return errorResult(
          `Tool ${tool.name} has an output schema but returned no structured content`,
        );
      }
      if (isStandardSchema(output)) {
        const verdict = await validate(output, structured);
        if (verdict.issues) {
          return errorResult(
            `Tool ${tool.name} returned invalid structured content: ${issuesText(verdict.issues)}`,
          );
        }
        structured = verdict.value;
      }
    }
    const content =
      result.content ??
      (structured === undefined ? [] : [{ type: 'text', text: JSON.stringify(structured) }]);
    return defined({ ...result, content, structuredContent: structured });
  };
  method('tools/call', async (raw, ctx) => {
    const params = paramsOf(raw);
    const name = stringParam(params, 'name');
    const tool = tools.get(name);
    if (tool === undefined) throw new InvalidParamsError(`Unknown tool: ${name}`, { name });
    const given = params.arguments ?? {};
    if (!isRecord(given)) throw new InvalidParamsError('"arguments" must be an object');
    let args: unknown = given;
    const input = tool.definition.input;
    if (input !== undefined && isStandardSchema(input)) {
      const verdict = await validate(input, given);
      if (verdict.issues) {
        return errorResult(`Invalid arguments for tool ${name}: ${issuesText(verdict.issues)}`);
      }
      args = verdict.value;
    }
    try {
      return await withInput(raw, ctx, `tools/call ${name} ${JSON.stringify(given)}`, async (c) =>
        toolResult(tool, await tool.handler(args, c)),
      );
    } catch (error) {
      if (error instanceof JsonRpcError || ctx.signal.aborted) throw error;
      return errorResult(error instanceof Error ? error.message : String(error));
    }
  });
  return listTool;
}
