/**
 * The options of this package's transports: what every one takes (framing, limits, backpressure),
 * and what the stdio, stream and child-process transports add. One file below the factories, so
 * that the factories and their option-name checks (`option-names.ts`) both read them.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Framing } from './framing.js';
import type { RespawnOptions } from './respawn.js';

/** Options shared by every transport of this package. */
export interface FramedTransportOptions {
  /**
   * How messages are delimited on the stream.
   *
   * @default DEFAULT_STREAM_FRAMING ('content-length'); 'auto' for createStdioTransport
   */
  readonly framing?: Framing | undefined;
  /**
   * The largest inbound message, in UTF-8 bytes. Bigger ones are skipped without being buffered,
   * scanned on the way for their top-level id and method, and handed to the owner's
   * `onTooLarge` (a server answers a request -32004 with its own id), else reported through
   * `onError`. The owner applies this limit too, so one endpoint has one limit.
   *
   * @default the owner's limit when it set one (a server's `maxMessageBytes`), else
   *   DEFAULT_STDIO_MAX_MESSAGE_BYTES (16 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * The largest Content-Length header block, in bytes.
   *
   * @default DEFAULT_MAX_HEADER_BYTES (8 KiB)
   */
  readonly maxHeaderBytes?: number | undefined;
  /**
   * Bytes of outgoing messages (answers, notifications) waiting to be written past which the
   * transport stops reading until the other side has read enough for the stream to drain.
   * `Infinity` never stops reading. Queued messages count by string length, written ones by bytes.
   *
   * Two ends that both stop reading while both have more than this to write would wait for each
   * other forever; that is why `spawnTransport`, a client, never stops reading by default.
   * Use `Infinity` on a client end of `createStreamTransport` that pipelines more than this.
   *
   * @default DEFAULT_HIGH_WATER_MARK (1 MiB); Infinity for spawnTransport
   */
  readonly highWaterMark?: number | undefined;
  /**
   * Bytes of outgoing messages that may wait to be written at most; past it the transport closes
   * with a `TransportError`, since the other side is not reading. Keep it above your largest
   * message.
   *
   * @default DEFAULT_MAX_QUEUED_BYTES (64 MiB)
   */
  readonly maxQueuedBytes?: number | undefined;
}

/** Options of `createStreamTransport`. */
export interface StreamTransportOptions extends FramedTransportOptions {}

/** Options of `createStdioTransport`. */
export interface StdioTransportOptions extends FramedTransportOptions {
  /**
   * Where requests come from.
   *
   * @default process.stdin
   */
  readonly stdin?: Readable | undefined;
  /**
   * Where answers go. Nothing else of the kit writes to it: logs belong on stderr.
   *
   * @default process.stdout
   */
  readonly stdout?: Writable | undefined;
}

/** What to do with the child's stderr: inherit it, pipe it, drop it, or receive each chunk. */
export type StderrOption = 'inherit' | 'pipe' | 'ignore' | ((chunk: Buffer) => void);

/** Options of `spawnTransport`. */
export interface SpawnTransportOptions extends FramedTransportOptions {
  /**
   * The child's environment.
   *
   * @default process.env
   */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /**
   * The child's working directory.
   *
   * @default process.cwd()
   */
  readonly cwd?: string | URL | undefined;
  /**
   * The child's stderr: `'inherit'` shares the parent's, `'pipe'` exposes it as
   * `transport.process.stderr` (read it, or the child may block), `'ignore'` drops it, a
   * function receives each chunk.
   *
   * @default 'inherit'
   */
  readonly stderr?: StderrOption | undefined;
  /**
   * The grace period of each shutdown step (stdin end → SIGTERM → SIGKILL), in milliseconds.
   *
   * @default DEFAULT_KILL_TIMEOUT (2000)
   */
  readonly killTimeout?: number | undefined;
  /**
   * Starts a new child when the child dies (opt-in). The owner hears `onDisconnect` (a client
   * fails its calls in flight with `CONNECTION_CLOSED`, "Connection lost"; they are not sent
   * again), a new child starts after the backoff, messages sent meanwhile go to it, and the owner
   * hears `onReconnect` (a client makes its live subscriptions again). `true` uses
   * `DEFAULT_RESPAWN`. `close()` ends the child and stops respawning.
   *
   * @default false
   */
  readonly respawn?: RespawnOptions | boolean | undefined;
  /**
   * Called each time a new child took over after a respawn (after the owner's `onReconnect`).
   *
   * @param child - the new child process
   */
  readonly onRespawn?: ((child: ChildProcess) => void) | undefined;
}
