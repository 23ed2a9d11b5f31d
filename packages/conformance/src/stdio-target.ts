/**
 * A target started as a child process and spoken to over its stdin and stdout, framed.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createStrictReader, type Framing, frame } from './framing.js';
import { createInbox, type Inbox } from './inbox.js';

/** A running stdio target. */
export interface StdioConnection {
  readonly inbox: Inbox;
  readonly framing: Framing;
  /** Sends one message, framed. */
  send(text: string): void;
  /** Writes raw bytes to the child's stdin. */
  write(bytes: Buffer): void;
  /** Everything on stdout that was not a well-formed frame. */
  readonly garbage: readonly string[];
  /** The last part of what the child wrote to stderr. */
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) when the child has exited. */
  readonly exited: Promise<number | string>;
  /** Whether the child has exited or stdin is closed. */
  readonly isClosed: boolean;
  /** Ends stdin and waits; then SIGTERM, then SIGKILL, `timeoutMs` apart. */
  close(timeoutMs?: number): Promise<number | string>;
  /** Ends stdin only. */
  endInput(): void;
}

const STDERR_KEEP = 4_096;

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  if (child.exitCode === null && child.signalCode === null) child.kill(name);
}

/**
 * Starts `command` in a shell and speaks to it over stdio.
 *
 * @param command - a shell command line
 * @param framing - the framing the target speaks
 * @returns the connection (the child is running; nothing is awaited)
 */
export function spawnStdio(command: string, framing: Framing): StdioConnection {
  // In the tool's process group, so that Ctrl-C stops the target too.
  const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const inbox = createInbox();
  const garbage: string[] = [];
  let stderr = '';
  let inputEnded = false;
  child.stdin!.on('error', () => {
    inputEnded = true;
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP);
  });
  child.stdout!.on(
    'data',
    createStrictReader(
      framing,
      (text) => inbox.push({ text, binary: false }),
      (description) => garbage.push(description),
    ),
  );
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (error) => {
      stderr += String(error);
      inbox.end();
      resolve('spawn-error');
    });
    child.once('exit', (code, signal) => {
      inbox.end();
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const isClosed = (): boolean =>
    inputEnded || inbox.ended || child.exitCode !== null || child.signalCode !== null;
  const write = (bytes: Buffer): void => {
    if (!isClosed()) child.stdin!.write(bytes);
  };
  return {
    inbox,
    framing,
    send: (text) => write(frame(text, framing)),
    write,
    garbage,
    stderr: () => stderr,
    exited,
    get isClosed() {
      return isClosed();
    },
    endInput() {
      inputEnded = true;
      child.stdin!.end();
    },
    async close(timeoutMs = 2_000) {
      inputEnded = true;
      child.stdin!.end();
      const timers: NodeJS.Timeout[] = [
        setTimeout(() => signal(child, 'SIGTERM'), timeoutMs),
        setTimeout(() => signal(child, 'SIGKILL'), 2 * timeoutMs),
      ];
      const code = await exited;
      for (const timer of timers) clearTimeout(timer);
      return code;
    },
  };
}
