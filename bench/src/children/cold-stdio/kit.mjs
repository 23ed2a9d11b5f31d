/**
 * Cold-start stdio server child, kit: `createServer` + `createStdioTransport({ framing:
 * 'newline' })` (`add`), imported as an application imports them (statically). Reports
 * `ready <ms>` on stderr: `process.uptime()` when its own code starts, its imports loaded.
 */
import { createServer } from '@jsonrpc-kit/server';
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';

process.stderr.write(`ready ${process.uptime() * 1000}\n`);
const server = createServer({});
server.method('add', (params) => params.a + params.b);
server.connect(createStdioTransport({ framing: 'newline' }));
process.stdin.on('end', () => process.exit(0));
