#!/usr/bin/env node
/**
 * The conformance server's command: HTTP and WebSocket on one port, or stdio.
 *
 * @module
 */
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { parseCli, USAGE } from './args.js';
import { createLogLimit } from './log-limit.js';
import { createConformanceServer } from './methods.js';
import { serveNetwork, serveStdio } from './serve.js';

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseCli>;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (cli.mode === 'help') {
    process.stderr.write(USAGE);
    return;
  }
  // A peer sending bad frames in a loop gets a few lines and a summary, not one line each.
  const log = createLogLimit({ write: (line) => process.stderr.write(line) });
  process.once('exit', log.flush);
  const server = createConformanceServer(
    {
      ...cli.policies,
      onError: (error, info) => {
        // `crash` fails on purpose; a peer that left before its answer is not the server's fault.
        if (info.method === 'crash' || error instanceof ConnectionClosedError) return;
        log.log(`conformance-server: ${String(error)}`);
      },
    },
    cli.streams,
  );
  if (cli.mode === 'stdio') {
    // In stdio mode stdout carries framed messages only; everything else goes to stderr.
    await serveStdio(server, cli.framing);
    await server.close();
    return;
  }
  const listener = await serveNetwork(server, { port: cli.port, host: cli.host });
  process.stdout.write(`listening ${listener.httpUrl} ${listener.wsUrl}\n`);
  const stop = (): void => {
    void listener
      .close()
      .then(() => server.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`conformance-server: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
