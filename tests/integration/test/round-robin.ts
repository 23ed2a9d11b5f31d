// A round-robin reverse proxy for the cluster tests: each request goes to the next backend in
// turn, its body read whole first (so the log says what passed), answers and event streams piped
// back as they come. No affinity: what a plain balancer does.
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  request as httpRequest,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request through the balancer: where it went, and its body. */
export interface Passed {
  readonly backend: number;
  readonly method: string;
  readonly body: string;
}

/**
 * Starts the proxy on 127.0.0.1, port 0.
 *
 * @param backends - the backends' URLs, taken in turn
 * @param upstreamTimeout - ms an upstream exchange may stay idle before it is dropped (none when
 *   unset: event streams stay open)
 * @returns its URL (path `/mcp`), the log of what passed, and `close()`
 */
export async function roundRobin(backends: readonly string[], upstreamTimeout?: number) {
  let next = 0;
  const log: Passed[] = [];
  const server: HttpServer = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const backend = next++ % backends.length;
      const body = Buffer.concat(chunks);
      log.push({ backend, method: req.method!, body: body.toString() });
      const target = new URL(backends[backend]!);
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: req.method },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.flushHeaders();
          answer.pipe(res);
        },
      );
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const header = req.rawHeaders[i]!;
        if (header.toLowerCase() !== 'host') upstream.setHeader(header, req.rawHeaders[i + 1]!);
      }
      upstream.setHeader('host', target.host);
      if (upstreamTimeout !== undefined)
        upstream.setTimeout(upstreamTimeout, () => upstream.destroy());
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
