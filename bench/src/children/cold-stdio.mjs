/**
 * Cold-start stdio server child: `node cold-stdio.mjs <impl>`. Imports what `impl` needs, serves
 * on its stdin/stdout, and reports `import <ms>` (time spent importing the library) on stderr.
 * Loads nothing else, so that the time to the first answer is the library's own.
 * - raw: newline-delimited JSON by hand (`add`)
 * - kit: `createServer` + `createStdioTransport({ framing: 'newline' })` (`add`)
 * - vscode-jsonrpc: `createMessageConnection` on the stdio streams, Content-Length framing (`add`)
 * - mcp-sdk: the MCP SDK's `McpServer` + `StdioServerTransport`, newline framing (`ping`)
 */
const impl = process.argv[2];
const add = (params) => params.a + params.b;
// hrtime, not `performance.now()`: the first use of `performance` loads perf_hooks.
const imported = async (load) => {
  const start = process.hrtime.bigint();
  const modules = await load();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  process.stderr.write(`import ${ms}\n`);
  return modules;
};

if (impl === 'raw') {
  await imported(async () => []);
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const m = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) })}\n`,
      );
    }
  });
} else if (impl === 'kit') {
  const [{ createServer }, { createStdioTransport }] = await imported(() =>
    Promise.all([import('@jsonrpc-kit/server'), import('@jsonrpc-kit/transport-stdio')]),
  );
  const server = createServer({});
  server.method('add', add);
  server.connect(createStdioTransport({ framing: 'newline' }));
} else if (impl === 'vscode-jsonrpc') {
  const rpc = await imported(() => import('vscode-jsonrpc/node'));
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(process.stdin),
    new rpc.StreamMessageWriter(process.stdout),
  );
  connection.onRequest('add', add);
  connection.listen();
} else if (impl === 'mcp-sdk') {
  const [{ McpServer }, { StdioServerTransport }] = await imported(() =>
    Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]),
  );
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  await server.connect(new StdioServerTransport());
} else {
  throw new Error(`unknown impl ${impl}`);
}
process.stdin.on('end', () => process.exit(0));
