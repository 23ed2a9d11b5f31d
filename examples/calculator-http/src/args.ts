/**
 * Command-line arguments of the calculator server.
 *
 * @module
 */
import { parseArgs } from 'node:util';

/** Where to listen. */
export interface CliOptions {
  readonly port: number;
  readonly host: string;
}

/** The usage text. */
export const USAGE = `Usage: jsonrpc-kit-calculator-http [--port N] [--host H]

  --port N   listen on port N (default 0: any free port)
  --host H   listen on host H (default 127.0.0.1)

Prints the URL as its first line.
`;

/**
 * Parses the command line.
 *
 * @param argv - the arguments after the script name
 * @returns port and host
 * @throws TypeError for an unknown option or a bad port
 * @example
 * ```ts
 * parseCli(['--port', '8545']); // { port: 8545, host: '127.0.0.1' }
 * ```
 */
export function parseCli(argv: readonly string[]): CliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: { port: { type: 'string' }, host: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
  }
  return { port, host: values.host ?? '127.0.0.1' };
}
