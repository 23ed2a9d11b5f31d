// A @jsonrpc-kit server over this process's stdio. Usage: node kit-server.mjs [framing]
import { createServer } from '@jsonrpc-kit/server';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';

const server = createServer();
server.method('add', ([a, b]) => a + b);
server.method('echo', (params) => params);
server.method('sleep', ([ms]) => new Promise((resolve) => setTimeout(() => resolve('slept'), ms)));
server.method('crash', ([code]) => process.exit(code));
server.connect(createStdioTransport({ framing: process.argv[2] ?? 'auto' }));
