// A vscode-jsonrpc server over this process's stdio (Content-Length framing).
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';

const connection = createMessageConnection(
  new StreamMessageReader(process.stdin),
  new StreamMessageWriter(process.stdout),
);
// vscode-jsonrpc spreads array params over the handler's arguments.
connection.onRequest('add', (a, b) => a + b);
connection.onRequest('echo', (params) => params);
connection.onNotification('bye', () => process.exit(0));
connection.listen();
