// The matrix server over this process's stdio. Usage: node stdio-server.mjs <framing>
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';
import { createMatrixServer } from './server.mjs';

createMatrixServer().connect(createStdioTransport({ framing: process.argv[2] ?? 'auto' }));
