/**
 * The command line of `jsonrpc-kit-openrpc`, parsed without side effects.
 *
 * @module
 */

/** The usage text. */
export const USAGE: string = `Usage: jsonrpc-kit-openrpc generate <document> --out <file.ts> [--valibot <specifier>] [--core <specifier>]

  <document>   an OpenRPC document, JSON or YAML; $refs to other files are bundled in
  --out        the TypeScript module to write (the contract, named schemas, openrpcOptions)
  --valibot    where the module imports valibot from (default: valibot)
  --core       where the module imports defineContract from (default: @jsonrpc-kit/core)`;

/** What the command line asks for. */
export interface CliCommand {
  /** The only command: `generate`. */
  readonly command: 'generate';
  /** The document's path. */
  readonly document: string;
  /** The output's path. */
  readonly out: string;
  /** The valibot import specifier. */
  readonly valibot: string | undefined;
  /** The core import specifier. */
  readonly core: string | undefined;
}

/**
 * Parses the arguments after the program name.
 *
 * @param args - `process.argv.slice(2)`
 * @returns the command
 * @throws Error with a message for the user when the arguments are wrong
 * @example
 * ```ts
 * parseCli(['generate', 'openrpc.yaml', '--out', 'src/contract.ts']);
 * ```
 */
export function parseCli(args: readonly string[]): CliCommand {
  const [command, ...rest] = args;
  if (command !== 'generate') throw new Error(`Unknown command: ${command ?? '(none)'}`);
  const options: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--out' || arg === '--valibot' || arg === '--core') {
      const value = rest[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      options[arg.slice(2)] = value;
    } else if (arg.startsWith('-')) {
      throw new Error(`Unknown option: ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1) throw new Error('Give exactly one document');
  if (options.out === undefined) throw new Error('--out is required');
  return {
    command: 'generate',
    document: positional[0]!,
    out: options.out,
    valibot: options.valibot,
    core: options.core,
  };
}
