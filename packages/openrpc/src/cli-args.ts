/**
 * The command line of `jsonrpc-kit-openrpc`, parsed without side effects.
 *
 * @module
 */

/** The usage text. */
export const USAGE: string = `Usage: jsonrpc-kit-openrpc generate <document> --out <file.ts> [--valibot <specifier>] [--core <specifier>]
       jsonrpc-kit-openrpc generate [<base document>] --methods <path>... [--schemas <path>...]
           [--error-groups <path>...] --out <file.ts> [--valibot <specifier>] [--core <specifier>]

  <document>   an OpenRPC document, JSON or YAML; $refs to other files are bundled in
  --methods    a file or folder of methods (YAML or JSON lists of method objects), repeatable;
               with it, the document is merged from files as the Ethereum execution APIs' build
               merges it, into the base document when one is given
  --schemas    a file or folder of schemas (maps of names to JSON Schemas), repeatable
  --error-groups  a file or folder of error groups (maps of names to { errors }), repeatable
  --out        the TypeScript module to write (the contract, named schemas, openrpcOptions)
  --valibot    where the module imports valibot from (default: valibot)
  --core       where the module imports defineContract from (default: @jsonrpc-kit/core)`;

/** What the command line asks for. */
export interface CliCommand {
  /** The only command: `generate`. */
  readonly command: 'generate';
  /**
   * The document's path; with {@link CliCommand.methods}, the base document's, when given.
   */
  readonly document: string | undefined;
  /** Files or folders of methods to merge (empty: read {@link CliCommand.document} alone). */
  readonly methods: readonly string[];
  /** Files or folders of schemas to merge. */
  readonly schemas: readonly string[];
  /** Files or folders of error groups to merge. */
  readonly errorGroups: readonly string[];
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
 * parseCli(['generate', '--methods', 'src/eth', '--schemas', 'src/schemas', '--out', 'eth.ts']);
 * ```
 */
export function parseCli(args: readonly string[]): CliCommand {
  const [command, ...rest] = args;
  if (command !== 'generate') throw new Error(`Unknown command: ${command ?? '(none)'}`);
  const options: Record<string, string> = {};
  const lists: Record<string, string[]> = { methods: [], schemas: [], 'error-groups': [] };
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--out' || arg === '--valibot' || arg === '--core') {
      const value = rest[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      options[arg.slice(2)] = value;
    } else if (arg === '--methods' || arg === '--schemas' || arg === '--error-groups') {
      const value = rest[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      lists[arg.slice(2)]!.push(value);
    } else if (arg.startsWith('-')) {
      throw new Error(`Unknown option: ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  const merging = lists.methods!.length > 0;
  if (!merging && (lists.schemas!.length > 0 || lists['error-groups']!.length > 0)) {
    throw new Error('--schemas and --error-groups go with --methods');
  }
  if (merging ? positional.length > 1 : positional.length !== 1) {
    throw new Error(merging ? 'Give at most one base document' : 'Give exactly one document');
  }
  if (options.out === undefined) throw new Error('--out is required');
  return {
    command: 'generate',
    document: positional[0],
    methods: lists.methods!,
    schemas: lists.schemas!,
    errorGroups: lists['error-groups']!,
    out: options.out,
    valibot: options.valibot,
    core: options.core,
  };
}
