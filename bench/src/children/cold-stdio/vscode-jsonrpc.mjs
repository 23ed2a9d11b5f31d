/**
 * Cold-start stdio server child, vscode-jsonrpc: `createMessageConnection` on the stdio streams,
 * Content-Length framing (`add`). Reports `ready <ms>` on stderr: `process.uptime()` when its own
 * code starts, its imports loaded.
 */
import * as rpc from 'vscode-jsonrpc/node';

process.stderr.write(`ready ${process.uptime() * 1000}\n`);
const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);
connection.onRequest('add', (params) => params.a + params.b);
connection.listen();
process.stdin.on('end', () => process.exit(0));
