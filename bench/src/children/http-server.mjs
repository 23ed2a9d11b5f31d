/**
 * HTTP server child: `node http-server.mjs <impl>`. Listens on 127.0.0.1, port 0, and prints
 * `{ "port": n }` on one line.
 */
import { createServer as createHttpServer } from 'node:http';
import { add, kit, METHOD, reportReady, serverMain } from '../common.mjs';

const impl = process.argv[2];

function readBody(req, done) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () =>
    done(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString()),
  );
}

function send(res, text) {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function rawServer() {
  const methods = new Map([[METHOD, add]]);
  return createHttpServer((req, res) => {
    readBody(req, (body) => {
      let m;
      try {
        m = JSON.parse(body);
      } catch {
        send(res, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
        return;
      }
      const handler = methods.get(m.method);
      const response =
        handler === undefined
          ? {
              jsonrpc: '2.0',
              id: m.id ?? null,
              error: { code: -32601, message: 'Method not found' },
            }
          : { jsonrpc: '2.0', id: m.id, result: handler(m.params) };
      send(res, JSON.stringify(response));
    });
  });
}

async function kitServer() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createHttpHandler } = await kit('@jsonrpc-kit/transport-http', 'createHttpHandler');
  const server = createServer({});
  server.method(METHOD, add);
  return createHttpServer(createHttpHandler(server));
}

async function jsonRpc2Server() {
  const { JSONRPCServer } = await import('json-rpc-2.0');
  const server = new JSONRPCServer();
  server.addMethod(METHOD, add);
  return createHttpServer((req, res) => {
    readBody(req, (body) => {
      server.receiveJSON(body).then((response) => {
        if (response) send(res, JSON.stringify(response));
        else res.writeHead(204).end();
      });
    });
  });
}

async function jaysonServer() {
  const { default: jayson } = await import('jayson');
  const server = new jayson.Server({ [METHOD]: (args, callback) => callback(null, add(args)) });
  return server.http();
}

const factories = {
  raw: rawServer,
  kit: kitServer,
  'json-rpc-2.0': jsonRpc2Server,
  jayson: jaysonServer,
};

await serverMain(async () => {
  const server = await factories[impl]();
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  reportReady({ port: server.address().port });
});
