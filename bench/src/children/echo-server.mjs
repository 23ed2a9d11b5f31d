/**
 * Big-message echo server child: `node --expose-gc echo-server.mjs <transport> <impl>` with
 * transport `http`, `streamable`, `ws` or `stdio` and impl `raw` or `kit`. Serves, with every
 * size limit at 64 MiB:
 * - `echo` (params back);
 * - `gc`: full GC, then takes the memory in use (heap + external) as the baseline;
 * - `echoMeasured`: `echo`, sampling the memory in use when the handler runs (the message
 *   decoded and parsed) and once more after the answer was written (serialized, framed, queued);
 * - `peak`: the highest sample since `gc`, less the baseline, in bytes;
 * - `initialize` (`{}`), which starts a Streamable HTTP session.
 * `streamable` is the kit's Streamable HTTP handler (JSON answers) for `kit`, and the same raw
 * node:http server as `http` for `raw`.
 * http and ws listen on 127.0.0.1, port 0, and print `{ "port": n }`; stdio serves on the child's
 * own stdin/stdout (newline framing).
 */
import { createServer as createHttpServer } from 'node:http';
import { kit, reportReady, serverMain } from '../common.mjs';
import { decoder } from '../stdio-frames.mjs';

const [transport, impl] = process.argv.slice(2);
const LIMIT = 64 * 1024 * 1024;

let baseline = 0;
let peak = 0;
const inUse = () => {
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
};
const sample = () => {
  const now = inUse();
  if (now > peak) peak = now;
};
const methods = {
  echo: (params) => params,
  echoMeasured: (params) => {
    sample();
    // Twice deferred: after a transport that writes its answers at the end of the loop's turn
    // (in its own `setImmediate`, scheduled after this one) has written this one too.
    setImmediate(() => setImmediate(sample));
    return params;
  },
  gc: () => {
    globalThis.gc?.();
    globalThis.gc?.();
    baseline = peak = inUse();
    return 0;
  },
  peak: () => peak - baseline,
  initialize: () => ({}),
};

/** The raw answer to one request text: parse, call, stringify. */
function rawAnswer(text) {
  const m = JSON.parse(text);
  return JSON.stringify({ jsonrpc: '2.0', id: m.id, result: methods[m.method](m.params) });
}

async function kitServer() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const server = createServer({ maxMessageBytes: LIMIT });
  for (const [name, fn] of Object.entries(methods)) server.method(name, fn);
  return server;
}

function listen(http) {
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(http.address().port)));
}

const servers = {
  async http() {
    let listener;
    if (impl === 'raw') {
      listener = (req, res) => {
        const chunks = [];
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => {
          const text = rawAnswer(Buffer.concat(chunks).toString());
          res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        });
      };
    } else {
      const { createHttpHandler } = await kit('@jsonrpc-kit/transport-http', 'createHttpHandler');
      listener = createHttpHandler(await kitServer(), { maxMessageBytes: LIMIT });
    }
    reportReady({ port: await listen(createHttpServer(listener)) });
  },
  async streamable() {
    if (impl === 'raw') return servers.http();
    const { createStreamableHttpNodeHandler } = await kit(
      '@jsonrpc-kit/transport-http',
      'createStreamableHttpNodeHandler',
    );
    const handler = createStreamableHttpNodeHandler(await kitServer(), {
      maxMessageBytes: LIMIT,
      responseMode: 'json',
      eventStore: false,
    });
    reportReady({ port: await listen(createHttpServer(handler)) });
  },
  async ws() {
    const http = createHttpServer();
    if (impl === 'raw') {
      const { WebSocketServer } = await import('ws');
      const wss = new WebSocketServer({ server: http, maxPayload: LIMIT });
      wss.on('connection', (ws) => ws.on('message', (data) => ws.send(rawAnswer(data.toString()))));
    } else {
      const { createWebSocketServer } = await kit(
        '@jsonrpc-kit/transport-ws',
        'createWebSocketServer',
      );
      createWebSocketServer(await kitServer(), { httpServer: http, maxMessageBytes: LIMIT });
    }
    reportReady({ port: await listen(http) });
  },
  async stdio() {
    if (impl === 'raw') {
      process.stdin.on(
        'data',
        decoder('newline', (text) => process.stdout.write(`${rawAnswer(text)}\n`)),
      );
    } else {
      const { createStdioTransport } = await kit(
        '@jsonrpc-kit/transport-stdio',
        'createStdioTransport',
      );
      (await kitServer()).connect(
        createStdioTransport({ framing: 'newline', maxMessageBytes: LIMIT }),
      );
    }
    process.stdin.on('end', () => process.exit(0));
  },
};

if (transport === 'stdio') await servers.stdio();
else await serverMain(servers[transport]);
