/**
 * MCP's tool methods: `tools/list`, `tools/call` (a call of a tool with `taskSupport` may become
 * a task), and the Tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel`.
 *
 * @module
 */
import { InvalidParamsError, JsonRpcError } from '@jsonrpc-kit/core';
import { isStandardSchema, validate } from '@jsonrpc-kit/core/engine';
import type { ToolReturn } from './definitions.js';
import { objectJsonSchema } from './json-schema.js';
import { defined, isRecord } from './records.js';
import { INSUFFICIENT_SCOPE } from './server-api.js';
import {
  errorResult,
  issuesText,
  type McpServerCore,
  paramsOf,
  stringParam,
  type ToolEntry,
} from './server-core.js';
import { declaresTasks, requiredTaskError, tasksNotDeclaredError } from './tasks/tasks.js';
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
  const { tools, method, page, listed, withInput, clientOf, taskManager } = core;
  // Tools
  const listTool = (tool: ToolEntry): Promise<Record<string, unknown>> => {
    tool.listed ??= (async () => {
      const { title, description, input, output, annotations, taskSupport, _meta } =
        tool.definition;
      return defined({
        name: tool.name,
        title,
        description,
        inputSchema: await objectJsonSchema(input, 'input'),
        outputSchema: output === undefined ? undefined : await objectJsonSchema(output, 'output'),
        annotations,
        execution: taskSupport === undefined ? undefined : { taskSupport },
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
    const needed = tool.definition.scopes ?? [];
    const principal = ctx.transport.auth as { scopes?: unknown } | undefined;
    if (needed.length > 0 && Array.isArray(principal?.scopes)) {
      const missing = needed.filter((scope) => !(principal.scopes as unknown[]).includes(scope));
      if (missing.length > 0) {
        throw new JsonRpcError(INSUFFICIENT_SCOPE, `Insufficient scope: ${missing.join(' ')}`, {
          scopes: [...needed],
        });
      }
    }
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
    const binding = `tools/call ${name} ${JSON.stringify(given)}`;
    const support = tool.definition.taskSupport;
    const asTask = support !== undefined && declaresTasks(clientOf(ctx, raw).capabilities);
    if (support === 'required' && !asTask) throw requiredTaskError(name);
    if (asTask) {
      // The handler decides when the call becomes a task (ctx.startTask()): the client is
      // answered with the task then, and the handler's end is the task's.
      const starter = taskManager.starter();
      try {
        return await withInput(
          raw,
          ctx,
          binding,
          async (c) => {
            const done = (async () => toolResult(tool, await tool.handler(args, c)))();
            const first = await Promise.race([
              done.then((result) => ({ result })),
              starter.started.then((handle) => ({ handle })),
            ]);
            if ('result' in first) return first.result;
            const { taskId } = first.handle;
            done
              .then(
                (result) =>
                  taskManager.settle(taskId, { result: result as Record<string, unknown> }),
                (error) => taskManager.settle(taskId, { error }),
              )
              .catch(() => {});
            return taskManager.created(taskId);
          },
          starter,
        );
      } catch (error) {
        if (error instanceof JsonRpcError || ctx.signal.aborted) throw error;
        return errorResult(error instanceof Error ? error.message : String(error));
      }
    }
    try {
      return await withInput(raw, ctx, binding, async (c) =>
        toolResult(tool, await tool.handler(args, c)),
      );
    } catch (error) {
      if (error instanceof JsonRpcError || ctx.signal.aborted) throw error;
      return errorResult(error instanceof Error ? error.message : String(error));
    }
  });

  // The Tasks extension: polling, answering and cancelling tasks.
  const taskMethod = (
    name: string,
    run: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ) =>
    method(name, (raw, ctx) => {
      if (!declaresTasks(clientOf(ctx, raw).capabilities)) throw tasksNotDeclaredError(name);
      return run(paramsOf(raw));
    });
  taskMethod('tasks/get', (params) => taskManager.get(params));
  taskMethod('tasks/update', (params) => taskManager.update(params));
  taskMethod('tasks/cancel', (params) => taskManager.cancel(params));
  return listTool;
}
