/**
 * A target started as a child process and spoken to over its stdin and stdout, framed.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createReadBudget, type ReadBudget } from './budget.js';
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
  /**
   * Ends stdin and waits for the target to exit; then SIGTERM, then SIGKILL to its whole process
   * group, `timeoutMs` apart. Whatever the target left in its group (the child of a shell, say) is
   * stopped the same way, and the pipes are let go, so nothing keeps the tool running.
   */
  close(timeoutMs?: number): Promise<number | string>;
  /** Ends stdin only. */
  endInput(): void;
}

const STDERR_KEEP = 4_096;

/** The targets running, so that the command line can stop them when it is interrupted. */
const running = new Set<ChildProcess>();

/** Process groups are POSIX: on Windows the target is signalled alone (and gets no console). */
const GROUPS = process.platform !== 'win32';

/** Sends a signal to every process of the target's group (the target leads its own group). */
function signalGroup(child: ChildProcess, name: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  if (!GROUPS) {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    return;
  }
  try {
    process.kill(-child.pid, name);
  } catch {
    // ESRCH: nothing is left in the group.
  }
}

/**
 * Stops every stdio target still running, with their process groups, at once (SIGKILL): for the
 * command line when it is interrupted, since a target in its own group does not get the
 * terminal's Ctrl-C.
 */
export function killRunningTargets(): void {
  for (const child of running) signalGroup(child, 'SIGKILL');
  running.clear();
}

/** Resolves `true` when `promise` settles within `ms`, `false` otherwise. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts `command` in a shell and speaks to it over stdio.
 *
 * The shell leads a process group of its own, so that stopping the target stops what it started
 * too (a SIGTERM to the shell alone would leave its child running, holding the pipes).
 *
 * @param command - a shell command line
 * @param framing - the framing the target speaks
 * @param budget - counts the bytes read from stdout; past its bound the target is killed
 * @returns the connection (the child is running; nothing is awaited)
 */
export function spawnStdio(
  command: string,
  framing: Framing,
  budget: ReadBudget = createReadBudget(Number.POSITIVE_INFINITY),
): StdioConnection {
  const child = spawn(command, { shell: true, detached: GROUPS, stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
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
  const read = createStrictReader(
    framing,
    (text) => inbox.push({ text, binary: false }),
    (description) => garbage.push(description),
  );
  child.stdout!.on('data', (chunk: Buffer) => {
    if (inbox.ended) return;
    if (budget.take(chunk.length)) {
      read(chunk);
      return;
    }
    // Past the bound: stop reading and stop the target (the case fails with the budget's detail).
    inbox.end();
    child.stdout!.destroy();
    signalGroup(child, 'SIGKILL');
  });
  // Every pipe closed: nothing in the group writes to the tool any more.
  const pipesClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (error) => {
      stderr += String(error);
      running.delete(child);
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
      if (!(await within(exited, timeoutMs))) {
        signalGroup(child, 'SIGTERM');
        if (!(await within(exited, timeoutMs))) signalGroup(child, 'SIGKILL');
      }
      const code = await exited;
      // The target has exited; what it left in its group still holds the pipes.
      if (!(await within(pipesClosed, 0))) {
        signalGroup(child, 'SIGTERM');
        if (!(await within(pipesClosed, timeoutMs))) {
          signalGroup(child, 'SIGKILL');
          await within(pipesClosed, timeoutMs);
        }
      }
      // A process that left the group (setsid) may keep its end open: let go of ours.
      child.stdin!.destroy();
      child.stdout!.destroy();
      child.stderr!.destroy();
      running.delete(child);
      return code;
    },
  };
}
