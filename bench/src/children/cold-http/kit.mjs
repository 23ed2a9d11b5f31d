/**
 * Cold-start HTTP server child, kit: `createServer` + `createHttpHandler` on `node:http`,
 * imported as an application imports them (statically). Listens on 127.0.0.1, port 0, and prints
 * `{ "port": n, "readyMs": t }`, `readyMs` being `process.uptime()` when its own code started.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer } from '@jsonrpc-kit/server';
import { createHttpHandler } from '@jsonrpc-kit/transport-http';

const readyMs = process.uptime() * 1000;
const server = createServer({});
server.method('add', (params) => params.a + params.b);
const http = createHttpServer(createHttpHandler(server));
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: http.address().port, readyMs })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
