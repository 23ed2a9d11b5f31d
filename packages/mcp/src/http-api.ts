/**
 * The shapes of the MCP HTTP endpoint: its options, the parts of node:http it uses, the body
 * limit, and the request and answer of the stateless (2026-07-28) path.
 *
 * @module
 */
import type { TransportContext } from '@jsonrpc-kit/core';

/** Options of {@link createMcpFetchHandler} and {@link createMcpNodeHandler}. */
export interface McpHttpOptions {
  /**
   * Checks `Host` and `Origin` of a request that arrived on a loopback address: both must name a
   * loopback host (`localhost`, `127.0.0.1`, `[::1]`), as the kit's Streamable HTTP handler does for
   * 2025 clients. `false` turns it off (the legacy handler keeps its own setting).
   *
   * @default true
   */
  readonly dnsRebindingProtection?: boolean;
  /**
   * Authenticates a stateless (2026-07-28) request, as the `legacy` handler's `authenticate` does
   * the others: give both the same hook (`createProtectedResource(...).authenticate` of
   * `@jsonrpc-kit/mcp/resource-server`), or stateless requests go through unauthenticated. What it
   * returns is the handler's `ctx.transport.auth`; an `HttpError` of `@jsonrpc-kit/transport-http`
   * it throws or returns is the answer (its status, headers and message), anything else it throws
   * a 401.
   */
  readonly authenticate?: (context: TransportContext) => unknown;
}

/** The parts of a node:http `IncomingMessage` the handler uses. */
export interface NodeRequestLike {
  /** The HTTP method. */
  readonly method?: string | undefined;
  /** The headers, names in lower case. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Whether the body was read already (by a body parser, which left it in `body`). */
  readonly readableEnded?: boolean;
  /** The body a body parser read: text (a parsed object is sent as its JSON). */
  readonly body?: unknown;
  /** The socket (its local address decides the DNS-rebinding check). */
  readonly socket: {
    /** The address the request arrived on. */
    readonly localAddress?: string | undefined;
  };
  /** Adds a listener of the body's chunks, its end or an error. */
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** Adds a one-time listener. */
  once(event: 'end' | 'error', listener: () => void): unknown;
}

/** The parts of a node:http `ServerResponse` the handler uses. */
export interface NodeResponseLike {
  /** Whether all of the answer was handed to the socket. */
  readonly writableFinished: boolean;
  /** Writes the head. */
  writeHead(status: number, headers?: Record<string, string>): NodeResponseLike;
  /** Writes a chunk of the body. */
  write(chunk: string): boolean;
  /** Ends the answer. */
  end(body?: string): unknown;
  /** Adds a one-time listener of the connection's close. */
  once(event: 'close', listener: () => void): unknown;
}

/** The most bytes of a stateless POST body read (larger ones are answered 413). */
export const MAX_STATELESS_BODY_BYTES: number = 4 * 1024 * 1024;
/** The parts of an HTTP request the stateless path reads. */
export interface Incoming {
  /** A header's value, by its lower-case name. */
  readonly header: (name: string) => string | undefined;
  /** All the headers. */
  readonly headers: Record<string, string>;
  /** The address the request arrived on, when known. */
  readonly localAddress: string | undefined;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal | undefined;
}

/** An answer: JSON (with its status) or a stream of events. */
export type Answer =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'empty'; readonly status: number }
  | { readonly kind: 'sse'; readonly events: AsyncIterable<string> };
