/**
 * What the dispatcher works with: the scope a message is answered in (one `handle()` exchange, or
 * one connection), and the server's configuration and policies as the dispatcher and its runner
 * read them.
 *
 * @module
 */
import type { ParseOptions, Peer, TransportContext } from '@jsonrpc-kit/core';
import type { ErrorHandler, Session } from '@jsonrpc-kit/core/engine';
import type { SignalSource } from './call.js';
import type { ContextReader } from './call-context.js';
import type { Limiter } from './limiter.js';
import type { ServerErrorInfo } from './options.js';
import type { Entry } from './registry.js';
import type { ServerMiddleware } from './types.js';

/** Where a message is answered: one `handle()` exchange, or one connection. */
export interface Scope {
  readonly transport: TransportContext;
  readonly peer: Peer | undefined;
  readonly limiter: Limiter;
  /** The client the scope's calls are counted for in a fair limiter; `undefined` for none. */
  readonly client: string | undefined;
  /**
   * The connection's session: its incoming-call table (cancellation, close), its outgoing calls
   * (responses), its profile (progress); `undefined` for `handle()`.
   */
  readonly session: Session | undefined;
  /** Holds the signal that aborts every call of the scope (the exchange's), read only when needed. */
  readonly outer: SignalSource | undefined;
}

/** What the dispatcher needs from the server. */
export interface DispatcherConfig {
  readonly methods: ReadonlyMap<string, Entry>;
  /** The current middleware (replaced, never mutated, on change). */
  readonly middleware: () => readonly ServerMiddleware[];
  readonly maxBatchSize: number;
  readonly batchConcurrency: number;
  readonly timeout: number;
  /** Reads the caller's context onto a call (the `callContext` option); `undefined`: off. */
  readonly readContext?: ContextReader | undefined;
  readonly exposeErrorDetails: boolean;
  /** The cancel notice's method: ignored over `handle()` unless a method of that name exists. */
  readonly cancelMethod: string | undefined;
  readonly report: (error: unknown, info: ServerErrorInfo) => void;
  /** The server's policies: codec, JSON-RPC 1.0, params-violation code, error mapping, batches. */
  readonly policies: Policies;
}

/** The server's policies, as the dispatcher needs them (see `ServerOptions`). */
export interface Policies {
  /** How text is read (a codec's reader, JSON-RPC 1.0); `undefined`: plain `parse`. */
  readonly parseOptions: ParseOptions | undefined;
  /** Decodes params before name mapping and validation. */
  readonly decode: ((value: unknown) => unknown) | undefined;
  /** Writes results (encoded by the codec). */
  readonly write: ((value: unknown) => string | undefined) | undefined;
  /** The code for params that are neither an array nor an object: -32602 or -32600. */
  readonly paramsViolationCode: number;
  /** Maps a thrown value that is not a `JsonRpcError` to an error object. */
  readonly errorHandler: ErrorHandler | undefined;
  /** `false`: a batch is answered with one -32600. */
  readonly batches: boolean;
}
