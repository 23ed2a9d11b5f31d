#!/usr/bin/env node
/**
 * The calculator over HTTP: `node dist/server.js --port 0` prints its URL as the first line.
 *
 * @module
 */
import { listen } from '@jsonrpc-kit/transport-http';
import { parseCli, USAGE } from './args.js';
import { createCalculatorServer } from './calculator.js';

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseCli>;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const server = createCalculatorServer();
  const http = await listen(server, { port: cli.port, host: cli.host });
  process.stdout.write(`${http.url}\n`);
  const stop = (): void => {
    void http.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`calculator-http: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
