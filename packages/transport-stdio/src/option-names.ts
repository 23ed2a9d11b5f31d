/**
 * The option names each factory of this package knows: an unknown name (misspelt, or renamed) is
 * refused with a `TypeError` instead of being ignored, naming the replacement of a renamed one.
 *
 * @module
 */
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import type {
  FramedTransportOptions,
  SpawnTransportOptions,
  StdioTransportOptions,
} from './transport-options.js';

const FRAMED: OptionNames<FramedTransportOptions> = {
  framing: true,
  maxMessageBytes: true,
  maxHeaderBytes: true,
  highWaterMark: true,
  maxQueuedBytes: true,
};

const STDIO: OptionNames<StdioTransportOptions> = { ...FRAMED, stdin: true, stdout: true };

const SPAWN: OptionNames<SpawnTransportOptions> = {
  ...FRAMED,
  env: true,
  cwd: true,
  stderr: true,
  killTimeout: true,
  respawn: true,
  onRespawn: true,
};

/** Old option names of this package's factories, and what replaced them. */
const RENAMED_STDIO_OPTIONS: Readonly<Record<string, string>> = {
  maxPayload: 'maxMessageBytes',
  maxRequestBytes: 'maxMessageBytes',
};

/** A factory of this package whose options are checked. */
type StdioFactory = 'createStreamTransport' | 'createStdioTransport' | 'spawnTransport';

/** The option names of each factory, by the name its errors give. */
const KNOWN: Readonly<Record<StdioFactory, Readonly<Record<string, true>>>> = {
  createStreamTransport: FRAMED,
  createStdioTransport: STDIO,
  spawnTransport: SPAWN,
};

/**
 * Refuses option names the factory does not know.
 *
 * @param factory - which factory
 * @param options - what it was given
 * @throws TypeError for an unknown name, naming the replacement of a renamed one
 */
export function checkStdioOptions(factory: StdioFactory, options: unknown): void {
  checkOptionNames(factory, options, KNOWN[factory], RENAMED_STDIO_OPTIONS);
}
