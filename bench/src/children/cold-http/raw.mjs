/**
 * Cold-start HTTP server child, raw: `node:http` and `JSON.parse`/`JSON.stringify` by hand.
 * Listens on 127.0.0.1, port 0, and prints `{ "port": n, "readyMs": t }`, `readyMs` being
 * `process.uptime()` when its own code started.
 */
import { createServer } from 'node:http';

const readyMs = process.uptime() * 1000;
const add = (params) => params.a + params.b;
const http = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const m = JSON.parse(body);
    const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  });
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: http.address().port, readyMs })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
