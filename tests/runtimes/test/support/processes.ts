/**
 * Child processes of the runtime tests: every one is tracked and killed by `stopAll()`, which
 * each test file calls in `afterAll`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { firstLine } from '../../../support/first-line.js';

const running = new Set<ChildProcess>();

/** A spawned process and what it wrote so far. */
export interface Started {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after a second; resolves when it has exited. */
  stop(): Promise<void>;
}

/** A started server and the first line it printed (its address). */
export interface StartedServer extends Started {
  readonly line: string;
}

/** Options of {@link start}. */
export interface StartOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Spawns `command` with stdout and stderr piped.
 *
 * @param command - the binary
 * @param args - its arguments
 * @param options - working directory, extra environment
 * @returns the started process
 */
export function start(
  command: string,
  args: readonly string[],
  options: StartOptions = {},
): Started {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const gone = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  void gone.then(() => running.delete(child));
  let output = '';
  const collect = (chunk: Buffer): void => {
    if (output.length < 100_000) output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return {
    child,
    output: () => output,
    async stop() {
      if (exited(child)) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 1_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/**
 * Spawns a server and waits for the first line it prints (its address).
 *
 * @param command - the binary
 * @param args - its arguments
 * @param options - working directory, extra environment
 * @param timeoutMs - how long to wait for the line
 * @returns the process and its first line
 */
export async function startServer(
  command: string,
  args: readonly string[],
  options: StartOptions = {},
  timeoutMs = 20_000,
): Promise<StartedServer> {
  const started = start(command, args, options);
  try {
    const line = await firstLine(started.child, () => `output: ${started.output()}`, timeoutMs);
    return { ...started, line };
  } catch (error) {
    await started.stop();
    throw error;
  }
}

/** What a finished process left. */
export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command` to its end, killing it after `timeoutMs`.
 *
 * @param command - the binary
 * @param args - its arguments
 * @param options - working directory, extra environment
 * @param timeoutMs - the longest it may run
 * @returns its exit code and output
 */
export function run(
  command: string,
  args: readonly string[],
  options: StartOptions = {},
  timeoutMs = 60_000,
): Promise<Finished> {
  const started = start(command, args, options);
  const { child } = started;
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<Finished>((resolve) => {
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      void started.stop();
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${String(error)}` });
    });
  });
}

/** Stops every process this file started. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      if (exited(child)) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    }),
  );
}
