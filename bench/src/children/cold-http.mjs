/**
 * Cold-start HTTP server child: `node cold-http.mjs <impl>`. Imports what `impl` needs, listens
 * on 127.0.0.1, port 0, and prints `{ "port": n, "importMs": t }`. Loads nothing else.
 * - raw: `node:http` and `JSON.parse`/`JSON.stringify` by hand
 * - kit: `createServer` + `createHttpHandler` on `node:http`
 */
import { createServer as createHttpServer } from 'node:http';

const impl = process.argv[2];
const add = (params) => params.a + params.b;

// hrtime, not `performance.now()`: the first use of `performance` loads perf_hooks.
const start = process.hrtime.bigint();
let listener;
if (impl === 'raw') {
  listener = (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const m = JSON.parse(body);
      const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  };
} else if (impl === 'kit') {
  const [{ createServer }, { createHttpHandler }] = await Promise.all([
    import('@jsonrpc-kit/server'),
    import('@jsonrpc-kit/transport-http'),
  ]);
  const server = createServer({});
  server.method('add', add);
  listener = createHttpHandler(server);
} else {
  throw new Error(`unknown impl ${impl}`);
}
const importMs = Number(process.hrtime.bigint() - start) / 1e6;
const http = createHttpServer(listener);
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: http.address().port, importMs })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
