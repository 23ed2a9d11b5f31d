/**
 * Test support: targets started as child processes, and the built command line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstLine } from '../../../tests/support/first-line.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The built command line of this package. */
export const CLI_JS: string = join(HERE, '..', 'dist', 'cli.js');
/** The kit's conformance server, built. */
export const SERVER_JS: string = join(
  HERE,
  '..',
  '..',
  '..',
  'examples',
  'conformance-server',
  'dist',
  'server.js',
);
/** The peer adapters. */
export const PEER_SERVER: string = join(HERE, 'peer-server.mjs');

/** A shell word for a path. */
export const quote = (path: string): string => `'${path.replace(/'/g, `'\\''`)}'`;

/** A server started as a child process that printed `listening URL [URL]` first. */
export interface ChildServer {
  readonly urls: readonly string[];
  /** What the child wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Starts `node script ...args` and waits for its first line.
 *
 * @param script - the script
 * @param args - its arguments
 * @returns the running server
 */
export async function startChild(script: string, args: readonly string[]): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await firstLine(child, () => `stderr: ${stderr}`);
  return {
    urls: line.split(' ').slice(1),
    stderr: () => stderr,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** What a run of the command line did. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built command line to its end (killed after `timeoutMs`).
 *
 * @param args - its arguments
 * @param timeoutMs - the deadline
 * @returns exit code and output
 */
export function runCli(args: readonly string[], timeoutMs = 60_000): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
