/**
 * What a session hands its transport, and how it reports the transport's errors.
 *
 * @module
 */
import { RequestTooLargeError } from './errors.js';
import type { ErrorInfo, ErrorKind, ErrorLevel } from './report.js';
import type { SessionOptions } from './session-types.js';
import type { Transport, TransportHandler } from './transport.js';

/** A session as its handler sees it: what arrives and what happens to the transport. */
export interface HandledSession extends TransportHandler {
  /** Takes one inbound text. */
  received(text: string): void;
  /** The transport closed: the session closes. */
  shutdown(cause: unknown): void;
  /** The connection was lost (the transport may reconnect). */
  disconnected(error?: Error): void;
  /** The other side ended its input. */
  inputEnded(): void;
}

const send = (kind: ErrorKind, level: ErrorLevel): ErrorInfo => ({ kind, level });
export const TRANSPORT_WARN: ErrorInfo = Object.freeze(send('transport-error', 'warn'));
export const TRANSPORT_FAILED: ErrorInfo = Object.freeze(send('transport-error', 'error'));
const TOO_LARGE: ErrorInfo = Object.freeze(send('message-too-large', 'warn'));

/**
 * How a transport's non-fatal error is reported: a message the transport refused unread for its
 * size (a `RequestTooLargeError`, say a WebSocket message over what `ws` reads) is
 * `message-too-large`, anything else `transport-error`.
 */
export const transportErrorInfo = (error: Error): ErrorInfo =>
  error instanceof RequestTooLargeError ? TOO_LARGE : TRANSPORT_WARN;

/**
 * What a session hands its transport: a plain object whose members are its own, so that a
 * transport (or a wrapper) may copy it (`{ ...handler, onMessage }`) or take a member off it; or,
 * for a transport that calls its members only as methods ({@link Transport.callsHandlerMethods}),
 * the session itself, whose behaviour is on its prototype (a server holds one per connection).
 * The optional `onTooLarge` and `onReconnect` are members only when the session has them, so that
 * a transport that checks for them behaves as before: a session whose owner takes messages over
 * the size limit is a `TooLargeTakingSession` (session.ts), and one whose owner listens for reconnections
 * hands the plain object.
 *
 * @param session - the session
 * @param options - its options
 * @param transport - its transport
 * @returns the handler
 */
export function sessionHandler(
  session: HandledSession,
  options: SessionOptions,
  transport: Transport,
): TransportHandler {
  if (transport.callsHandlerMethods === true && options.onReconnect === undefined) return session;
  const handler: { -readonly [K in keyof TransportHandler]: TransportHandler[K] } = {
    onMessage: (text) => session.received(text),
    onClose: (error) => session.shutdown(error),
    onError: (error) => options.report(error, transportErrorInfo(error)),
    onDisconnect: (error) => session.disconnected(error),
    onEnd: () => session.inputEnded(),
  };
  // A member (a closure) only for an owner that listens: a server's connection does not.
  if (options.onReconnect !== undefined) handler.onReconnect = () => options.onReconnect!();
  if (options.onTooLarge !== undefined) {
    // Called on the options: the owner's hooks may be methods of one object.
    handler.onTooLarge = (envelope, error) => options.onTooLarge!(envelope, error);
  }
  if (options.maxMessageBytes !== undefined) handler.maxMessageBytes = options.maxMessageBytes;
  return handler;
}
