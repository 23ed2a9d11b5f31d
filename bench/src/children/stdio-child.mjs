/**
 * stdio server child: `node stdio-child.mjs <impl> <framing>`. Serves JSON-RPC on its own
 * stdin/stdout until stdin ends.
 */
import { add, CPU_METHOD, cpuNow, GC_METHOD, gcNow, kit, METHOD } from '../common.mjs';
import { coalescingWriter, decoder, perFrameWriter } from '../stdio-frames.mjs';

const [impl, framing] = process.argv.slice(2);

function raw(coalesce) {
  const methods = new Map([
    [METHOD, add],
    [CPU_METHOD, cpuNow],
    [GC_METHOD, gcNow],
  ]);
  const write = coalesce
    ? coalescingWriter(process.stdout, framing)
    : perFrameWriter(process.stdout, framing);
  const decode = decoder(framing, (text) => {
    const m = JSON.parse(text);
    const handler = methods.get(m.method);
    const response =
      handler === undefined
        ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }
        : { jsonrpc: '2.0', id: m.id, result: handler(m.params) };
    write(JSON.stringify(response));
  });
  process.stdin.on('data', decode);
  process.stdin.on('end', () => process.exit(0));
}

async function kitChild() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createStdioTransport } = await kit(
    '@jsonrpc-kit/transport-stdio',
    'createStdioTransport',
  );
  const server = createServer({});
  server.method(METHOD, add);
  server.method(CPU_METHOD, cpuNow);
  server.method(GC_METHOD, gcNow);
  await server.connect(createStdioTransport({ framing }));
}

async function vscodeChild() {
  const rpc = await import('vscode-jsonrpc/node');
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(process.stdin),
    new rpc.StreamMessageWriter(process.stdout),
  );
  connection.onRequest(METHOD, (params) => add(params));
  connection.onRequest(CPU_METHOD, () => cpuNow());
  connection.onRequest(GC_METHOD, () => gcNow());
  connection.onClose(() => process.exit(0));
  connection.listen();
}

if (impl === 'raw') raw(false);
else if (impl === 'raw-coalesced') raw(true);
else if (impl === 'kit') await kitChild();
else if (impl === 'vscode-jsonrpc') await vscodeChild();
else throw new Error(`unknown impl ${impl}`);
