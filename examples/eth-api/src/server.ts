#!/usr/bin/env node
/**
 * The Ethereum-style API over HTTP and WebSocket on one port: `node dist/server.js --port 0`
 * prints `listening http://127.0.0.1:PORT/ ws://127.0.0.1:PORT/` as its first line.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { createEthApi } from './chain.js';

const USAGE = `Usage: jsonrpc-kit-eth-api [--port N] [--host H] [--block-time MS]

  --port N          listen on port N (default 0: any free port)
  --host H          listen on host H (default 127.0.0.1)
  --block-time MS   milliseconds between blocks (default 50)

Prints "listening http://HOST:PORT/ ws://HOST:PORT/" as its first line.
`;

async function main(): Promise<void> {
  let port: number;
  let host: string;
  let blockTime: number;
  try {
    const { values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'block-time': { type: 'string' },
      },
      strict: true,
    });
    port = values.port === undefined ? 0 : Number(values.port);
    host = values.host ?? '127.0.0.1';
    blockTime = values['block-time'] === undefined ? 50 : Number(values['block-time']);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new TypeError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
    }
    if (!(blockTime > 0 && blockTime <= 100)) {
      throw new TypeError('--block-time must be a number of milliseconds from 1 to 100');
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const api = createEthApi({ blockTime });
  const bound = await api.listen(port, host);
  const name = host.includes(':') ? `[${host}]` : host;
  process.stdout.write(`listening http://${name}:${bound}/ ws://${name}:${bound}/\n`);
  const stop = (): void => {
    void api.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`eth-api: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
