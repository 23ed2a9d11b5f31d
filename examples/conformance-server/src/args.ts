/**
 * Command-line arguments of the conformance server.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import type { ServerOptions } from '@jsonrpc-kit/server';
import { STREAMS_FLAVOURS, type StreamsFlavour } from './methods.js';
import { DEFAULT_HOST, type StdioFraming } from './serve.js';

/** The server policies the command line can switch. */
export type CliPolicies = Pick<ServerOptions, 'jsonrpc1' | 'batches' | 'paramsViolation'>;

/** What the command line asks for. */
export type CliOptions =
  | {
      readonly mode: 'network';
      readonly port: number;
      readonly host: string;
      readonly streams: StreamsFlavour;
      readonly policies: CliPolicies;
    }
  | {
      readonly mode: 'stdio';
      readonly framing: StdioFraming;
      readonly streams: StreamsFlavour;
      readonly policies: CliPolicies;
    }
  | { readonly mode: 'help' };

/** The usage text. */
export const USAGE = `Usage: jsonrpc-kit-conformance-server [--port N] [--host H] | --stdio content-length|newline|auto
                                      [--streams default|kotlinx]

  --port N     listen on port N (default 0: any free port)
  --host H     listen on host H (default ${DEFAULT_HOST})
  --stdio F    serve stdin/stdout instead, framed as F
  --streams P  the stream protocol of count: default (rpc.stream.next) or kotlinx
               (the kotlinx-rpc draft's nextFlowValue / cancelFlow); default: default
  --jsonrpc1   accept JSON-RPC 1.0 beside 2.0, answering each in its own version
  --no-batch   refuse batches (one -32600 with id null)
  --params-violation invalid-params|invalid-request
               the code for params that are neither array nor object (default -32602)
  --help       show this text

HTTP mode prints "listening http://HOST:PORT/rpc ws://HOST:PORT/ws" as its first line.
`;

const FRAMINGS: readonly string[] = ['content-length', 'newline', 'auto'];

/**
 * Parses the command line.
 *
 * @param argv - the arguments after the script name
 * @returns what to do
 * @throws TypeError for an unknown option or a bad value
 * @example
 * ```ts
 * parseCli(['--port', '8080', '--no-batch']);
 * // { mode: 'network', port: 8080, host: '127.0.0.1', streams: 'default', policies: { batches: false } }
 * ```
 */
export function parseCli(argv: readonly string[]): CliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      stdio: { type: 'string' },
      streams: { type: 'string' },
      jsonrpc1: { type: 'boolean' },
      'no-batch': { type: 'boolean' },
      'params-violation': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { mode: 'help' };
  const streams = (values.streams ?? 'default') as StreamsFlavour;
  if (!STREAMS_FLAVOURS.includes(streams)) {
    throw new TypeError(
      `--streams must be one of ${STREAMS_FLAVOURS.join(', ')}, not "${values.streams}"`,
    );
  }
  const violation = values['params-violation'];
  if (
    violation !== undefined &&
    violation !== 'invalid-params' &&
    violation !== 'invalid-request'
  ) {
    throw new TypeError(
      `--params-violation must be invalid-params or invalid-request, not "${violation}"`,
    );
  }
  const policies: CliPolicies = {
    ...(values.jsonrpc1 === true ? { jsonrpc1: true } : {}),
    ...(values['no-batch'] === true ? { batches: false } : {}),
    ...(violation === undefined ? {} : { paramsViolation: violation }),
  };
  if (values.stdio !== undefined) {
    if (!FRAMINGS.includes(values.stdio)) {
      throw new TypeError(`--stdio must be one of ${FRAMINGS.join(', ')}, not "${values.stdio}"`);
    }
    return { mode: 'stdio', framing: values.stdio as StdioFraming, streams, policies };
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
  }
  return { mode: 'network', port, host: values.host ?? DEFAULT_HOST, streams, policies };
}
