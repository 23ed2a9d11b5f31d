/**
 * WebSocket server child for the many-connections scenarios: `node ws-conns-server.mjs <impl>`.
 * Serves `add` on 127.0.0.1, port 0, prints `{ "port": n }`, and answers `GET /__stats` (memory
 * and CPU of this process) on the same port. The kit runs with its defaults (heartbeat on) except
 * the connection caps, lifted so that one load generator on 127.0.0.1 may open every socket.
 */
import { createServer as createHttpServer } from 'node:http';
import { reportReady, serverMain, serveStats } from '../common.mjs';
import { wsConnsServers } from '../ws-conns-servers.mjs';

const impl = process.argv[2];

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

await serverMain(async () => {
  const http = createHttpServer();
  serveStats(http, (_req, res) => res.writeHead(404).end());
  await wsConnsServers[impl](http);
  reportReady({ port: await listen(http) });
});
