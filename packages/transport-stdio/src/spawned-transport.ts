/**
 * The shape of a transport to a child process: the transport, the child running now, and how the
 * child ended. Declared apart from `spawnTransport`, so that the respawning transport, which
 * `spawnTransport` composes, can name it without importing it.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import type { Transport } from '@jsonrpc-kit/core';

/** How a child process ended. */
export interface ProcessExit {
  /** The exit code, or `null` when a signal ended it (or it never started). */
  readonly code: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: NodeJS.Signals | null;
}

/** A transport to a child process, with the process and its exit. */
export interface SpawnedTransport extends Transport {
  /** The child process (with `respawn`, the one running now). */
  readonly process: ChildProcess;
  /**
   * Resolves once the child exited (never rejects; `code` and `signal` are `null` when it could
   * not start). With `respawn`, once the transport closed and its last child exited.
   */
  readonly exit: Promise<ProcessExit>;
}
