// A peer library behind a real endpoint, as its README shows, with the JSON-RPC 2.0
// specification's example methods: `node peer-server.mjs json-rpc-2.0|jayson http|ws` (prints
// "listening URL" first) or `node peer-server.mjs vscode-jsonrpc stdio` (Content-Length framing). An uncaught exception (some inputs crash a peer) is written to
// stderr as "uncaught: ..." and the process keeps serving, as a supervisor would restart it.
import { createServer } from 'node:http';

const [library, transport] = process.argv.slice(2);

process.on('uncaughtException', (error) => {
  process.stderr.write(`uncaught: ${error?.name}: ${error?.message}\n`);
});

function subtract(params) {
  if (Array.isArray(params)) return params[0] - params[1];
  return params.minuend - params.subtrahend;
}
const sum = (params) => params.reduce((a, b) => a + b, 0);
const getData = () => ['hello', 5];
const crash = () => {
  throw new Error('crash requested');
};

async function jsonRpc2() {
  const { JSONRPCServer } = await import('json-rpc-2.0');
  const server = new JSONRPCServer();
  server.addMethod('subtract', subtract);
  server.addMethod('sum', sum);
  server.addMethod('get_data', getData);
  server.addMethod('update', () => undefined);
  server.addMethod('notify_hello', () => undefined);
  server.addMethod('crash', crash);
  return server;
}

async function jaysonServer() {
  const { default: jayson } = await import('jayson');
  const method = (fn) => (params, callback) => callback(null, fn(params));
  return new jayson.Server({
    subtract: method(subtract),
    sum: method(sum),
    get_data: method(getData),
    update: method(() => null),
    notify_hello: method(() => null),
    crash: method(crash),
  });
}

/** vscode-jsonrpc over stdin/stdout; it spreads positional params and adds a token last. */
async function serveVscodeStdio() {
  const { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter } =
    await import('vscode-jsonrpc/node');
  const connection = createMessageConnection(
    new StreamMessageReader(process.stdin),
    new StreamMessageWriter(process.stdout),
  );
  const args = (list) => list.slice(0, -1);
  connection.onRequest('subtract', (...list) => {
    const params = args(list);
    return params.length === 1 ? subtract(params[0]) : subtract(params);
  });
  connection.onRequest('sum', (...list) => sum(args(list)));
  connection.onRequest('get_data', getData);
  connection.onRequest('crash', crash);
  connection.onRequest(
    'sleep',
    (ms, token) =>
      new Promise((resolve, reject) => {
        if (token.isCancellationRequested) {
          reject(new ResponseError(-32800, 'Request cancelled'));
          return;
        }
        const timer = setTimeout(() => resolve(ms), ms);
        token.onCancellationRequested(() => {
          clearTimeout(timer);
          reject(new ResponseError(-32800, 'Request cancelled'));
        });
      }),
  );
  connection.onNotification('update', () => {});
  connection.onNotification('notify_hello', () => {});
  connection.onClose(() => process.exit(0));
  connection.listen();
}

let http;
if (library === 'vscode-jsonrpc' && transport === 'stdio') {
  await serveVscodeStdio();
} else if (library === 'json-rpc-2.0' && transport === 'http') {
  // The README's Express example: `app.post(...)`, `res.json(answer)` or `res.sendStatus(204)`.
  const rpc = await jsonRpc2();
  http = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end(); // what Express answers for a route it does not have
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      rpc.receiveJSON(Buffer.concat(chunks).toString('utf8')).then((answer) => {
        if (answer) {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify(answer));
        } else res.writeHead(204).end();
      });
    });
  });
} else if (library === 'json-rpc-2.0' && transport === 'ws') {
  const rpc = await jsonRpc2();
  http = createServer();
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (socket) => {
    socket.on('error', () => {}); // a bad frame closes the socket (1007, 1009): nothing to add
    socket.on('message', (data) => {
      rpc.receiveJSON(String(data)).then((answer) => {
        if (answer) socket.send(JSON.stringify(answer));
      });
    });
  });
} else if (library === 'jayson' && transport === 'http') {
  http = (await jaysonServer()).http();
} else if (library === 'jayson' && transport === 'ws') {
  http = createServer();
  (await jaysonServer()).websocket({ server: http });
} else {
  process.stderr.write(
    'usage: node peer-server.mjs json-rpc-2.0|jayson http|ws, or vscode-jsonrpc stdio\n',
  );
  process.exit(2);
}

http?.listen(0, '127.0.0.1', () => {
  const { port } = http.address();
  process.stdout.write(`listening ${transport === 'ws' ? 'ws' : 'http'}://127.0.0.1:${port}/\n`);
});
process.on('SIGTERM', () => process.exit(0));
