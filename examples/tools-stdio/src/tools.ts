/**
 * The MCP tool server on `@jsonrpc-kit/mcp`: `add`, `echo`, and `countdown` (progress,
 * cancellation). Each tool is a name, a description, a valibot schema of its arguments (its JSON
 * Schema is what `tools/list` shows) and a handler.
 *
 * @module
 */
import { type CallToolResult, createMcpServer, type McpServer } from '@jsonrpc-kit/mcp';
import * as v from 'valibot';

/** The name and version the server reports. */
export const SERVER_INFO = { name: 'jsonrpc-kit-tools-stdio', version: '0.0.0' } as const;

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

/**
 * Creates the tool server.
 *
 * @param log - where diagnostics go (never stdout on stdio)
 * @returns the server: `mcp.connect(createStdioTransport({ framing: 'newline' }))`
 */
export function createToolsServer(log: (line: string) => void = () => {}): McpServer {
  const mcp = createMcpServer({
    ...SERVER_INFO,
    server: { onError: (error, info) => log(`error in ${info.method ?? 'a message'}: ${error}`) },
  });
  mcp.server.use((ctx, next) => {
    const params = ctx.params as { protocolVersion?: string; clientInfo?: { name?: string } };
    if (ctx.method === 'initialize') {
      log(
        `initialize from ${params?.clientInfo?.name ?? 'a client'} (asked ${params?.protocolVersion})`,
      );
    }
    return next();
  });

  mcp.tool(
    'add',
    {
      description: 'Adds two numbers and answers the sum as text.',
      input: v.object({
        a: described(v.number(), 'The first number'),
        b: described(v.number(), 'The second number'),
      }),
    },
    ({ a, b }) => String(a + b),
  );

  mcp.tool(
    'echo',
    {
      description: 'Answers the text it is given.',
      input: v.object({ text: described(v.string(), 'The text to echo') }),
    },
    ({ text }) => text,
  );

  mcp.tool(
    'countdown',
    {
      description: 'Counts down, reporting progress at each step; stops when cancelled.',
      input: v.object({
        steps: described(
          v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
          'How many steps',
        ),
        delayMs: v.optional(
          described(v.pipe(v.number(), v.minValue(0), v.maxValue(10_000)), 'Milliseconds per step'),
          100,
        ),
      }),
    },
    async ({ steps, delayMs }, ctx) => {
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve, reject) => {
          if (ctx.signal.aborted) return reject(ctx.signal.reason);
          const stop = () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          };
          const timer = setTimeout(() => {
            ctx.signal.removeEventListener('abort', stop);
            resolve(undefined);
          }, delayMs);
          ctx.signal.addEventListener('abort', stop, { once: true });
        });
        await ctx.progress(i, steps);
      }
      return `counted down ${steps}`;
    },
  );
  return mcp;
}

/**
 * The text of a tool's answer.
 *
 * @param result - a `tools/call` result
 * @returns its text blocks, joined
 */
export function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('');
}
