/**
 * What the streaming handler reads of a request and answers, before any runtime's request or
 * response object exists: shared by its core and its fetch and node:http adapters. Internal.
 *
 * @module
 */
import { serializeError } from '@jsonrpc-kit/core';
import type { BodyFailure } from './body-failure.js';
import type { HttpContext } from './http-context.js';
import type { PolicyDecision } from './request-policy.js';
import type { SseStream } from './sse-stream.js';

/**
 * One HTTP request as the streaming handler reads it, whatever the runtime: a fetch `Request`,
 * or node:http's `IncomingMessage` read directly. Internal.
 */
export interface StreamableIncoming {
  readonly method: string;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** The local address it arrived on (DNS-rebinding protection applies to loopback). */
  readonly localAddress: string | undefined;
  /** The facts the server and the `authenticate` hook see. */
  context(maxMessageBytes: number): HttpContext;
  /** Reads the body, bounded; `undefined` when it could not be read. */
  body(max: number, timeout: number): Promise<string | BodyFailure | undefined>;
  /** Calls back once if the client goes away before the answer has ended. */
  onGone(callback: () => void): void;
}

/** What the streaming handler answers, before any runtime's response object exists. Internal. */
export type StreamableReply =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: string;
      /** Flat name/value list. */
      readonly headers: readonly string[];
      /** Answered before the body was read (413): the rest of the body is to be dropped. */
      readonly early?: boolean;
    }
  | { readonly kind: 'empty'; readonly status: number; readonly headers: readonly string[] }
  | { readonly kind: 'sse'; readonly stream: SseStream; readonly headers: readonly string[] }
  | { readonly kind: 'policy'; readonly decision: Extract<PolicyDecision, { kind: 'answer' }> };

/**
 * A JSON-RPC error object with id `null`, as the body of an HTTP answer.
 *
 * @param code - the error code
 * @param message - the message
 * @returns the JSON text
 */
export function errorBody(code: number, message: string): string {
  return serializeError(null, { code, message });
}

/**
 * A JSON answer.
 *
 * @param status - the HTTP status
 * @param body - the JSON text
 * @param headers - flat name/value list
 * @returns the reply
 */
export function reply(status: number, body: string, headers: readonly string[]): StreamableReply {
  return { kind: 'json', status, body, headers };
}

/**
 * An event-stream answer.
 *
 * @param stream - the stream
 * @param headers - flat name/value list
 * @returns the reply
 */
export function sse(stream: SseStream, headers: readonly string[]): StreamableReply {
  return { kind: 'sse', stream, headers };
}

/** Whether a session or classification is a reply instead (neither has a `kind`). */
export function isReply(value: object): value is StreamableReply {
  return 'kind' in value;
}

/** The headers of an event-stream answer, after the given ones. */
export const SSE_HEADERS: readonly string[] = [
  'content-type',
  'text/event-stream',
  'cache-control',
  'no-cache',
];
