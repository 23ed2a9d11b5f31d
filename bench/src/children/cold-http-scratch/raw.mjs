import { createServer } from 'node:http';
const t = (x) => +(performance.now()).toFixed(2);
const readyMs = t(); const marks={};
const add = (params) => params.a + params.b;
const http = createServer((req, res) => { marks.req=t(); res.on('finish', () => { marks.finish = t(); process.stderr.write(JSON.stringify({readyMs, ...marks})+'\n'); });
  let body = ''; req.setEncoding('utf8'); req.on('data', (chunk) => (body += chunk));
  req.on('end', () => { const m = JSON.parse(body); const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) }); res.writeHead(200, { 'content-type': 'application/json' }).end(text); });
});
http.listen(0, '127.0.0.1', () => { marks.listening = t(); process.stdout.write(`${JSON.stringify({ port: http.address().port, readyMs })}\n`); });
