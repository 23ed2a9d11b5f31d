/**
 * A transport to a server started as a child process, speaking over its stdin and stdout.
 *
 * @module
 */

import type { Readable, Writable } from 'node:stream';
import { createChannel } from './channel.js';
import { closeReasonError } from './close-reason.js';
import { ProcessExitError } from './errors.js';
import { checkStdioOptions } from './option-names.js';
import { createRespawningTransport } from './respawn.js';
import type { ProcessExit, SpawnedTransport } from './spawned-transport.js';
import type { SpawnTransportOptions } from './transport-options.js';

export type { SpawnTransportOptions, StderrOption } from './transport-options.js';

import { DEFAULT_MAX_QUEUED_BYTES, DEFAULT_STREAM_FRAMING } from './stream-transport.js';

export type { SpawnedTransport } from './spawned-transport.js';

/**
 * How long {@link spawnTransport} waits after ending the child's stdin before SIGTERM, and after
 * SIGTERM before SIGKILL, in milliseconds.
 *
 * @default 2000
 */
export const DEFAULT_KILL_TIMEOUT: number = 2000;

/** How long to wait, after the child exited, for the rest of its stdout. */
const EXIT_DRAIN_MS = 200;

/**
 * Starts `command` as a child process and returns a transport over its stdin and stdout. The
 * child exiting closes the transport: `onClose` receives a `ProcessExitError` with the exit code
 * and signal (unless the transport was being closed already). Closing the transport writes what
 * is queued, ends the child's stdin, sends SIGTERM after `killTimeout` ms if it is still running
 * and SIGKILL after another `killTimeout` (timers are unref'd); `close()` resolves once it exited.
 *
 * With `respawn`, a child that dies is replaced instead (see
 * {@link SpawnTransportOptions.respawn}), and the transport closes only on `close()`, when the
 * command cannot start at all, or after `maxAttempts` children in a row died without a word.
 *
 * @param command - the program to run
 * @param args - its arguments
 * @param options - framing, limits, environment, working directory, stderr, the kill timeout,
 *   and respawning
 * @returns the transport, with `process` and `exit`
 * @throws RangeError when the respawn options are out of range. Otherwise never: a child that
 *   cannot start (`ENOENT`, say) or that exits closes the transport with a `ProcessExitError`
 *   (code `TRANSPORT_ERROR`), and `send()` then rejects with `ConnectionClosedError` (code
 *   `CONNECTION_CLOSED`)
 * @example
 * ```ts
 * const transport = spawnTransport('node', ['server.mjs'], { framing: 'newline' });
 * const client = createClient(transport);
 * console.log(await client.request('ping'));
 * await transport.close();
 * ```
 */
export function spawnTransport(
  command: string,
  args: readonly string[] = [],
  options: SpawnTransportOptions = {},
): SpawnedTransport {
  checkStdioOptions('spawnTransport', options);
  const respawn = options.respawn ?? false;
  if (respawn === false) return spawnChild(command, args, options);
  return createRespawningTransport(
    () => spawnChild(command, args, options),
    respawn,
    options.onRespawn,
  );
}

/** One child and the transport over its stdio: the body of {@link spawnTransport}. */
function spawnChild(
  command: string,
  args: readonly string[],
  options: SpawnTransportOptions,
): SpawnedTransport {
  const stderr = options.stderr ?? 'inherit';
  const killTimeout = options.killTimeout ?? DEFAULT_KILL_TIMEOUT;
  // Loaded here, not imported at the top: a server that never spawns (most stdio servers) does
  // not pay for loading `node:child_process` at start-up.
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', typeof stderr === 'function' ? 'pipe' : stderr],
    windowsHide: true,
  });
  const stdin = child.stdin as Writable;
  const stdout = child.stdout as Readable;
  if (typeof stderr === 'function') child.stderr?.on('data', stderr);

  let exited: ProcessExit | undefined;
  let resolveExit!: (exit: ProcessExit) => void;
  const exit = new Promise<ProcessExit>((resolve) => {
    resolveExit = resolve;
  });
  let terminating = false;
  let timer: NodeJS.Timeout | undefined;

  /** Ends the child in steps: stdin end, then SIGTERM, then SIGKILL. */
  const terminate = (): void => {
    if (terminating || exited !== undefined) return;
    terminating = true;
    if (!stdin.writableEnded && !stdin.destroyed) stdin.end();
    timer = setTimeout(() => {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      timer = setTimeout(() => {
        if (exited === undefined) child.kill('SIGKILL');
      }, killTimeout);
      timer.unref();
    }, killTimeout);
    timer.unref();
  };

  const failWithExit = (): void => {
    if (channel.stopped) return;
    const { code, signal } = exited!;
    const how = signal === null ? `with code ${code}` : `by ${signal}`;
    channel.stop(
      new ProcessExitError(`Child process "${command}" exited ${how}`, {
        exitCode: code,
        signal,
      }),
      false,
    );
    stdout.destroy();
  };

  const channel = createChannel({
    readable: stdout,
    writable: stdin,
    framing: options.framing ?? DEFAULT_STREAM_FRAMING,
    maxMessageBytes: options.maxMessageBytes,
    maxHeaderBytes: options.maxHeaderBytes,
    // A client keeps reading its server's answers even while its own writes wait: both ends
    // pausing at once would deadlock.
    highWaterMark: options.highWaterMark ?? Number.POSITIVE_INFINITY,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    // The child closed its stdout, or a pipe failed (EPIPE once it died): the exit says why.
    onEnd: () => {
      if (exited !== undefined) failWithExit();
      else terminate();
    },
    onStreamError: () => {
      if (exited !== undefined) failWithExit();
      else terminate();
    },
  });

  child.on('exit', (code, signal) => {
    exited = { code, signal };
    if (timer !== undefined) clearTimeout(timer);
    resolveExit(exited);
    if (channel.stopped) return;
    // Let what the child wrote before exiting arrive first.
    if (stdout.readableEnded || stdout.destroyed) {
      failWithExit();
      return;
    }
    const wait = setTimeout(failWithExit, EXIT_DRAIN_MS);
    stdout.once('close', () => {
      clearTimeout(wait);
      failWithExit();
    });
  });

  child.on('error', (error) => {
    if (child.pid === undefined && exited === undefined) {
      // It never started.
      exited = { code: null, signal: null };
      resolveExit(exited);
      channel.stop(
        new ProcessExitError(`Child process "${command}" could not start: ${error.message}`, {
          cause: error,
          exitCode: null,
          signal: null,
        }),
        false,
      );
      return;
    }
    channel.reportError(error);
  });

  let closing: Promise<void> | undefined;
  return {
    process: child,
    exit,
    start: channel.start,
    send: channel.send,
    get maxMessageBytes() {
      return channel.maxMessageBytes;
    },
    close(reason) {
      if (closing === undefined) {
        channel.stop(closeReasonError(reason), true);
        // Keep draining its stdout so that the child never blocks on a full pipe while exiting.
        stdout.resume();
        terminate();
        closing = exit.then(() => undefined);
      }
      return closing;
    },
  };
}
