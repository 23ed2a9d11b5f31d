/**
 * The session: one duplex conversation over one transport, the engine under the client and
 * under each of the server's connections. Small parts, composed; its one base class is its own
 * sending half (session-outgoing.ts).
 *
 * ```text
 * start(dispatch) ── transport.start ── onMessage(text)
 *   ├─ screen(text) answers instead of parsing (a size limit)           → send
 *   ├─ parse ── response ─────────────────────→ outgoing table (pending.ts): settle, or report
 *   │        ├─ cancel notice ────────────────→ incoming table (incoming.ts): abort; answer or not
 *   │        ├─ progress notice ──────────────→ the onProgress of the outgoing call with that token
 *   │        └─ request / notification / batch → dispatch: the owner's incoming runner
 *   │                                              its answer (now or later) → send
 * request(method, params) ── outgoing.ts: id, pending table (timeout, abort, give-up → cancel
 *                            notice) ─────────────────────────────────────────────────────────→ send
 * sendBatch / holdBatch ───── outgoing-batch.ts: ids, pending table, batch record ──────────────→ send
 * notify(method, params) ─────────────────────────────────────────────────────────────────→ send
 * close / transport onClose ── reject outgoing, abort incoming, resolve `closed`
 * transport onDisconnect ───── reject outgoing ("Connection lost"); incoming keep running
 * transport onEnd (input ended) reject outgoing; close once the incoming calls have answered
 * ```
 *
 * The interface and options are in session-types.ts, the waits of early sends and the watch of
 * detached ones in session-sends.ts, the transport's handler in session-handler.ts, the cancel
 * and progress notices in session-notices.ts.
 *
 * @module
 */
import type { MessageEnvelope } from './envelope.js';
import { ConnectionClosedError } from './errors.js';
import { createIncomingCalls, type IncomingCall, type IncomingCalls } from './incoming.js';
import type { ParseResult } from './parse.js';
import { parse } from './parse.js';
import {
  sessionHandler,
  TRANSPORT_FAILED,
  TRANSPORT_WARN,
  transportErrorInfo,
} from './session-handler.js';
import { CLOSED, INPUT_ENDED, SendingSession } from './session-outgoing.js';
import { DONE, startWaitOf } from './session-sends.js';
import type { Session, SessionDispatch, SessionOptions } from './session-types.js';
import { toError } from './to-error.js';
import type { Transport } from './transport.js';

export type { Session, SessionAnswer, SessionDispatch, SessionOptions } from './session-types.js';

/**
 * Creates a session over a transport (not started yet: see {@link Session.start}).
 *
 * @param transport - the transport, not yet started: the session becomes its only owner
 * @param options - profile, timeouts, ids and hooks
 * @returns the session
 * @example
 * ```ts
 * const [a, b] = createMemoryTransportPair();
 * const session = createSession(a, { report: console.warn });
 * session.start(() => undefined);
 * ```
 */
export function createSession(transport: Transport, options: SessionOptions): Session {
  return options.onTooLarge === undefined
    ? new SessionImpl(transport, options)
    : new TooLargeTakingSession(transport, options);
}

/**
 * One session. A class rather than closures over a scope: a server holds one session per
 * connection, and here its behaviour lives once on the prototype while each session holds only
 * its fields. The tables, the signal, the `closed` promise and the outgoing half are made on
 * first use: most connections never call back, run a slow handler, or are awaited.
 */
class SessionImpl extends SendingSession implements Session {
  #dispatch: SessionDispatch | undefined;

  get incoming(): IncomingCalls<IncomingCall> {
    const extras = SendingSession.extrasOf(this);
    return (extras.incoming ??= createIncomingCalls<IncomingCall>());
  }

  get signal(): AbortSignal {
    const extras = SendingSession.extrasOf(this);
    if (extras.life === undefined) {
      extras.life = new AbortController();
      if (this.isClosed) extras.life.abort(extras.closeReason);
    }
    return extras.life.signal;
  }

  get closed(): Promise<void> {
    if (this.isClosed) return DONE;
    const extras = SendingSession.extrasOf(this);
    extras.closedPromise ??= new Promise<void>((resolve) => {
      extras.resolveClosed = resolve;
    });
    return extras.closedPromise;
  }

  /** Closes the session for whatever reason (not the transport: the caller sees to that). */
  shutdown(cause: unknown): void {
    if (this.isClosed) return;
    SendingSession.setFlag(this, CLOSED);
    const extras = SendingSession.extrasOf(this);
    extras.outgoing?.close(cause);
    const options = SendingSession.optionsOf(this);
    const closeReason =
      options.closeReason !== undefined
        ? options.closeReason(cause)
        : new ConnectionClosedError(undefined, cause === undefined ? undefined : { cause });
    extras.closeReason = closeReason;
    extras.life?.abort(closeReason);
    extras.incoming?.closeAll(closeReason);
    options.onClose?.(cause);
    extras.resolveClosed?.();
  }

  close(reason?: unknown): Promise<void> {
    if (this.isClosed) return this.closed;
    this.shutdown(reason);
    let closing: Promise<void>;
    try {
      closing = SendingSession.transportOf(this).close(reason);
    } catch (error) {
      closing = Promise.reject(error);
    }
    return closing.then(
      () => this.closed,
      (error: unknown) => {
        SendingSession.optionsOf(this).report(toError(error), TRANSPORT_WARN);
        return this.closed;
      },
    );
  }

  /** One answer worked out: the session closes after the last one once its input ended. */
  static #answered(session: SessionImpl): void {
    if (
      --SendingSession.extrasIf(session)!.running! === 0 &&
      SendingSession.hasFlag(session, INPUT_ENDED)
    ) {
      void session.close();
    }
  }

  /** Nothing more will arrive: calls waiting for answers cannot get them; calls running here
   * still answer, and the session closes after the last one. */
  inputEnded(): void {
    SendingSession.setFlag(this, INPUT_ENDED);
    const extras = SendingSession.extrasIf(this);
    extras?.outgoing?.failAll('The other side ended its input', undefined);
    if (!extras?.running) void this.close();
  }

  /** The connection was lost (the transport may reconnect): calls waiting for answers fail. */
  disconnected(error?: Error): void {
    SendingSession.extrasIf(this)?.outgoing?.failAll('Connection lost', error);
  }

  // The session is the handler of a transport that calls the handler's members as methods (see
  // `sessionHandler`): no object of its own per session.

  onMessage(text: string): void {
    this.received(text);
  }

  /** The parser of this session's messages: its options' `parse`, else core's. */
  get parse(): (text: string) => ParseResult {
    return SendingSession.optionsOf(this).parse ?? parse;
  }

  onParsed(parsed: ParseResult, text: string): void {
    this.received(text, parsed);
  }

  onClose(error?: Error): void {
    this.shutdown(error);
  }

  onError(error: Error): void {
    SendingSession.optionsOf(this).report(error, transportErrorInfo(error));
  }

  onDisconnect(error?: Error): void {
    this.disconnected(error);
  }

  onEnd(): void {
    this.inputEnded();
  }

  get maxMessageBytes(): number | undefined {
    return SendingSession.optionsOf(this).maxMessageBytes;
  }

  /**
   * Takes one inbound text.
   *
   * @param text - the message or batch
   * @param given - what {@link SessionImpl.parse} made of `text`, when the transport parsed it
   */
  received(text: string, given?: ParseResult): void {
    if (this.isClosed) return;
    const options = SendingSession.optionsOf(this);
    if (options.screen?.(text)) return;
    const parsed = given ?? (options.parse ?? parse)(text);
    if (parsed.kind === 'response') {
      this.respond(parsed.message);
      return;
    }
    if (parsed.kind === 'notification' && this.consume(parsed.message)) return;
    const out = this.#dispatch!.call(options, parsed, text);
    if (out === undefined) return;
    const about = parsed.kind === 'request' ? parsed.message : undefined;
    if (typeof out === 'string') this.sendDetached(out, about);
    else {
      const extras = SendingSession.extrasOf(this);
      extras.running = (extras.running ?? 0) + 1;
      out.then((answer) => {
        if (answer !== undefined) this.sendDetached(answer, about);
        SessionImpl.#answered(this);
      });
    }
  }

  start(dispatch: SessionDispatch): void {
    this.#dispatch = dispatch;
    const options = SendingSession.optionsOf(this);
    try {
      const transport = SendingSession.transportOf(this);
      const wait = startWaitOf(this);
      wait.promise = transport.start(sessionHandler(this, options, transport)).then(
        () => {
          wait.resolved = true;
          if (wait.waiting === 0) SendingSession.sendStraight(this);
        },
        (error: unknown) => {
          options.report(toError(error), TRANSPORT_FAILED);
          this.shutdown(error);
        },
      );
    } catch (error) {
      options.report(toError(error), TRANSPORT_FAILED);
      this.shutdown(error);
    }
  }
}

/** A session whose owner takes messages over the size limit: as a handler, it has `onTooLarge`. */
class TooLargeTakingSession extends SessionImpl {
  onTooLarge(envelope: MessageEnvelope, error: Error): void {
    // Called on the options: the owner's hooks may be methods of one object.
    SendingSession.optionsOf(this).onTooLarge!(envelope, error);
  }
}
