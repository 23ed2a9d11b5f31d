// The child side of stdio.bench.mjs: answers {"method":"echo"} requests over stdin/stdout.
// Usage: node echo-child.mjs <raw|kit|vscode> <content-length|newline>
import { createRequire } from 'node:module';

const [mode, framing] = process.argv.slice(2);
const answer = (text) => {
  const { id, params } = JSON.parse(text);
  return JSON.stringify({ jsonrpc: '2.0', id, result: params });
};

if (mode === 'kit') {
  const { createStdioTransport } = await import('../dist/index.js');
  const transport = createStdioTransport({ framing });
  await transport.start({
    onMessage: (text) => void transport.send(answer(text)),
    onClose: () => process.exit(0),
  });
} else if (mode === 'vscode') {
  const require = createRequire(new URL('../../../bench/package.json', import.meta.url));
  const { StreamMessageReader, StreamMessageWriter } = require('vscode-jsonrpc/node');
  const reader = new StreamMessageReader(process.stdin);
  const writer = new StreamMessageWriter(process.stdout);
  reader.listen((message) => {
    void writer.write({ jsonrpc: '2.0', id: message.id, result: message.params });
  });
  process.stdin.on('end', () => process.exit(0));
} else if (framing === 'newline') {
  // Hand-framed baseline: split on \n, one write per answer.
  let rest = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) if (line !== '') process.stdout.write(answer(line) + '\n');
  });
  process.stdin.on('end', () => process.exit(0));
} else {
  // Hand-framed baseline: Content-Length with a concat buffer, one write per answer.
  let buf = Buffer.alloc(0);
  process.stdin.on('data', (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) break;
      const length = Number(/Content-Length: (\d+)/i.exec(buf.toString('latin1', 0, end))[1]);
      if (buf.length < end + 4 + length) break;
      const body = buf.toString('utf8', end + 4, end + 4 + length);
      buf = buf.subarray(end + 4 + length);
      const out = answer(body);
      process.stdout.write(`Content-Length: ${Buffer.byteLength(out)}\r\n\r\n${out}`);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}
