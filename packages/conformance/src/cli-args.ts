/**
 * The command line of `jsonrpc-conformance`.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import type { CancellationDialect, ConformanceConfigInput, MethodNames } from './config.js';
import type { Target } from './context.js';
import { FRAMINGS, type Framing } from './framing.js';

/** The usage text. */
export const USAGE = `Usage: jsonrpc-conformance (--http URL | --ws URL | --stdio 'COMMAND' --framing F) [options]

Checks a JSON-RPC 2.0 endpoint against the specification, case by case.

Target (one of):
  --http URL               POST requests to URL
  --ws URL                 a WebSocket at URL
  --stdio 'COMMAND'        start COMMAND (in a shell) and talk over its stdin/stdout
  --framing F              stdio framing: content-length (LSP) or newline (MCP)

Options:
  --config FILE            a JSON configuration (methods, limits, cancellation)
  --method ROLE=NAME       the target's name for a role (repeatable); NAME "-" skips the role
  --max-body-bytes N|none  the target's body limit (default 1048576)
  --max-batch-size N|none  the target's batch limit (default 100)
  --cancel DIALECT|none    a cancellation dialect the target speaks (repeatable):
                           $/cancelRequest, notifications/cancelled
  --timeout MS             the deadline of one case (default 5000)
  --max-answer-bytes N     the most bytes read from the target in one case; past it the case
                           fails and its connection is dropped (default 16777216)
  --only PREFIX            run only cases whose id starts with PREFIX (repeatable)
  --strict                 count the limit (limits.*) and HTTP policy (http.*) cases in the
                           verdict too; by default they are reported apart, not counted
  --json                   print the report as JSON
  --help                   show this text

Exit status: 0 when no counted case failed, 1 when one did, 2 for a usage error. The
specification's cases are counted; limits.* and http.* only with --strict.
`;

/** What the command line asks for. */
export type CliRequest =
  | { readonly mode: 'help' }
  | {
      readonly mode: 'run';
      readonly target: Target;
      readonly configFile: string | undefined;
      readonly overrides: ConformanceConfigInput;
      readonly only: readonly string[] | undefined;
      readonly json: boolean;
      /** Whether the limit and HTTP policy cases count in the verdict. */
      readonly strict: boolean;
    };

function limit(value: string | undefined, name: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new TypeError(`${name} must be a positive integer or none`);
  return n;
}

/**
 * Parses the command line.
 *
 * @param argv - the arguments after the script name
 * @returns what to do
 * @throws TypeError for an unknown option, a missing target or a bad value
 * @example
 * ```ts
 * parseCli(['--http', 'http://127.0.0.1:8080/rpc', '--json']);
 * ```
 */
export function parseCli(argv: readonly string[]): CliRequest {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      http: { type: 'string' },
      ws: { type: 'string' },
      stdio: { type: 'string' },
      framing: { type: 'string' },
      config: { type: 'string' },
      method: { type: 'string', multiple: true },
      'max-body-bytes': { type: 'string' },
      'max-batch-size': { type: 'string' },
      cancel: { type: 'string', multiple: true },
      timeout: { type: 'string' },
      'max-answer-bytes': { type: 'string' },
      only: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      strict: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { mode: 'help' };
  const given = [values.http, values.ws, values.stdio].filter((v) => v !== undefined);
  if (given.length !== 1) throw new TypeError('give exactly one of --http, --ws and --stdio');
  let target: Target;
  if (values.http !== undefined) {
    if (!/^https?:\/\//.test(values.http)) throw new TypeError('--http needs an http(s):// URL');
    target = { http: values.http };
  } else if (values.ws !== undefined) {
    if (!/^wss?:\/\//.test(values.ws)) throw new TypeError('--ws needs a ws(s):// URL');
    target = { ws: values.ws };
  } else {
    const framing = values.framing;
    if (framing === undefined || !FRAMINGS.includes(framing as Framing)) {
      throw new TypeError(`--stdio needs --framing ${FRAMINGS.join('|')}`);
    }
    target = { stdio: values.stdio!, framing: framing as Framing };
  }
  if (values.framing !== undefined && values.stdio === undefined) {
    throw new TypeError('--framing goes with --stdio');
  }
  const methods: Record<string, string | null> = {};
  for (const pair of values.method ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new TypeError(`--method needs ROLE=NAME, not "${pair}"`);
    const name = pair.slice(eq + 1);
    methods[pair.slice(0, eq)] = name === '-' ? null : name;
  }
  const overrides: {
    -readonly [K in keyof ConformanceConfigInput]: ConformanceConfigInput[K];
  } = {};
  if (Object.keys(methods).length > 0) overrides.methods = methods as Partial<MethodNames>;
  const maxBodyBytes = limit(values['max-body-bytes'], '--max-body-bytes');
  if (maxBodyBytes !== undefined) overrides.maxBodyBytes = maxBodyBytes;
  const maxBatchSize = limit(values['max-batch-size'], '--max-batch-size');
  if (maxBatchSize !== undefined) overrides.maxBatchSize = maxBatchSize;
  if (values.cancel !== undefined) {
    overrides.cancellation = values.cancel.filter((d) => d !== 'none') as CancellationDialect[];
  }
  if (values.timeout !== undefined) {
    const timeout = Number(values.timeout);
    if (!Number.isInteger(timeout) || timeout <= 0)
      throw new TypeError('--timeout must be a positive integer');
    overrides.timeoutMs = timeout;
  }
  if (values['max-answer-bytes'] !== undefined) {
    const bytes = Number(values['max-answer-bytes']);
    if (!Number.isInteger(bytes) || bytes <= 0)
      throw new TypeError('--max-answer-bytes must be a positive integer');
    overrides.maxAnswerBytes = bytes;
  }
  return {
    mode: 'run',
    target,
    configFile: values.config,
    overrides,
    only: values.only,
    json: values.json === true,
    strict: values.strict === true,
  };
}
