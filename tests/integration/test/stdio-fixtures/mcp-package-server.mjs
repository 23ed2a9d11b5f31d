// An MCP server on @jsonrpc-kit/mcp: imported by the interop tests (Streamable HTTP, in process)
// and run as a script on stdio (newline framing).
import { createMcpServer } from '@jsonrpc-kit/mcp';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';
import * as v from 'valibot';

/** The server: `add` (output schema), `countdown` (progress, cancellation), `ask` (elicitation), a resource, a template, a prompt. */
export function buildServer(cancelled = []) {
  const mcp = createMcpServer({ name: 'kit-mcp', version: '1.0.0', instructions: 'Adds.' });
  mcp.tool(
    'add',
    {
      description: 'Adds two numbers',
      input: v.object({ a: v.number(), b: v.number() }),
      output: v.object({ sum: v.number() }),
    },
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );
  mcp.tool(
    'countdown',
    { input: v.object({ steps: v.number(), delayMs: v.optional(v.number(), 10) }) },
    async ({ steps, delayMs }, ctx) => {
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve, reject) => {
          const stop = () => {
            clearTimeout(timer);
            cancelled.push(String(ctx.requestId));
            reject(ctx.signal.reason);
          };
          const timer = setTimeout(() => {
            ctx.signal.removeEventListener('abort', stop);
            resolve();
          }, delayMs);
          ctx.signal.addEventListener('abort', stop, { once: true });
        });
        await ctx.progress(i, steps);
      }
      return `counted ${steps}`;
    },
  );
  mcp.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    await ctx.log('info', `asked: ${answer.action}`);
    return `hello ${answer.content?.name}`;
  });
  mcp.resource('readme', 'test://readme', { mimeType: 'text/plain' }, () => 'read me');
  mcp.resourceTemplate(
    'item',
    'test://items/{id}',
    { complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) } },
    (_uri, { id }) => `item ${id}`,
  );
  mcp.prompt(
    'greet',
    { description: 'Greets', args: v.object({ name: v.string() }) },
    ({ name }) => `Hello ${name}`,
  );
  return mcp;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const mcp = buildServer();
  const connection = mcp.connect(createStdioTransport({ framing: 'newline' }));
  void connection.closed.then(() => mcp.close());
}
