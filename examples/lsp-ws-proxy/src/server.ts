#!/usr/bin/env node
/**
 * The proxy as a command: `node dist/server.js --port 0` prints its URL as the first line; each
 * WebSocket connection gets its own language server process.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { startLspProxy } from './proxy.js';

const USAGE = `Usage: jsonrpc-kit-lsp-ws-proxy [--port N] [--host H]

  --port N   listen on port N (default 0: any free port)
  --host H   listen on host H (default 127.0.0.1)

Prints "ws://HOST:PORT/" as its first line.
`;

async function main(): Promise<void> {
  let port: number;
  let host: string;
  try {
    const { values } = parseArgs({
      options: { port: { type: 'string' }, host: { type: 'string' } },
      strict: true,
    });
    port = values.port === undefined ? 0 : Number(values.port);
    host = values.host ?? '127.0.0.1';
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new TypeError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const lsp = await startLspProxy({
    port,
    host,
    log: (line) => process.stderr.write(`[lsp-ws-proxy] ${line}\n`),
  });
  process.stdout.write(`${lsp.url}\n`);
  const stop = (): void => {
    void lsp.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`lsp-ws-proxy: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
