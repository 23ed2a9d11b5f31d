/**
 * Cold-start stdio server child, raw: newline-delimited JSON by hand (`add`). Loads nothing.
 * Reports `ready <ms>` on stderr: `process.uptime()` when its own code starts to run.
 */
process.stderr.write(`ready ${process.uptime() * 1000}\n`);
const add = (params) => params.a + params.b;
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
    const m = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) })}\n`,
    );
  }
});
process.stdin.on('end', () => process.exit(0));
