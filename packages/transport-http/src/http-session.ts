/**
 * One Streamable HTTP session: the duplex `Transport` that `server.connect()` serves, with its
 * waiting POSTs and its streams. (Named apart from core's session, the engine under each
 * connection, which serves this transport.)
 *
 * @module
 */
import {
  ConnectionClosedError,
  type ParseResult,
  type Transport,
  type TransportHandler,
} from '@jsonrpc-kit/core';
import { TurnoverMap } from '@jsonrpc-kit/core/engine';
import { type Exchange, SessionActivity } from './session-activity.js';
import type { SessionOrigin } from './session-origin.js';
import type { SseStream } from './sse-stream.js';

/** What a session needs of the handler that made it: one object shared by all its sessions. */
export interface SessionOwner {
  /** Routes one message the server sends on a session. */
  route(session: HttpSession, text: string): Promise<void>;
  /** Closes a session (and forgets it everywhere). */
  closeSession(session: HttpSession, reason?: unknown): Promise<void>;
  readonly maxMessageBytes: number;
  /** The server's parser, when it offers one: POST bodies are parsed with it, once. */
  readonly parse: ((text: string) => ParseResult) | undefined;
}

/** When this module loaded, as `Date.now()` gives it. */
const EPOCH = Date.now();

/**
 * Milliseconds since this module loaded: what a session keeps as its last activity. Below 2^31
 * for 24 days, such a number is held in the session itself; a `Date.now()` would be a boxed
 * number of 16 bytes more per session.
 */
export function clock(): number {
  return Date.now() - EPOCH;
}

/** The handler of a closed session: it takes nothing more. */
export const CLOSED_HANDLER: TransportHandler = Object.freeze({ onMessage() {}, onClose() {} });

/**
 * One session, and the duplex {@link Transport} `server.connect()` serves: its methods are on the
 * prototype and what only a session with a stream or a waiting POST uses is made on first use, so
 * an idle session is one object of four fields, one of them empty. Its handler (the owner) is on
 * the prototype too: each handler makes its sessions from a subclass of its own
 * ({@link sessionClass}).
 */
export abstract class HttpSession implements Transport {
  readonly id: string | undefined;
  /** The server's handler once started; {@link CLOSED_HANDLER} once closed. */
  handler: TransportHandler | undefined = undefined;
  /** Its waiting POSTs and its stream's state, while it has any (see {@link SessionActivity}). */
  activity: SessionActivity | undefined = undefined;
  lastActive: number;
  /** Who opened it (one record for sessions opened alike), or `undefined` when nobody is named. */
  readonly origin: SessionOrigin | undefined;

  constructor(
    id: string | undefined,
    streamId: string | undefined,
    origin: SessionOrigin | undefined,
  ) {
    this.id = id;
    if (streamId !== undefined) this.activityState().standaloneId = streamId;
    this.lastActive = clock();
    this.origin = origin;
  }

  /** The handler that made it. */
  abstract get owner(): SessionOwner;

  get closed(): boolean {
    return this.handler === CLOSED_HANDLER;
  }

  /** The session's activity, made now if it had none. */
  activityState(): SessionActivity {
    return (this.activity ??= new SessionActivity());
  }

  /** The POSTs waiting for answers, if any. */
  get exchanges(): TurnoverMap<Exchange, true> | undefined {
    return this.activity?.exchanges;
  }

  set exchanges(exchanges: TurnoverMap<Exchange, true> | undefined) {
    if (exchanges !== undefined) this.activityState().exchanges = exchanges;
    else if (this.activity !== undefined) {
      this.activity.exchanges = undefined;
      this.activity.waiting = undefined;
      this.activity.tokens = undefined;
      this.activity.newest = undefined;
      if (this.activity.unused) this.activity = undefined;
    }
  }

  /** Takes a POST that waits for the answers with `ids`. */
  wait(exchange: Exchange, ids: readonly string[]): void {
    (this.exchanges ??= new TurnoverMap()).set(exchange, true);
    const activity = this.activity!;
    const waiting = (activity.waiting ??= new TurnoverMap());
    for (const id of ids) {
      // An id twice in one batch is waited for once, as its first answer ends the wait.
      if (waiting.get(id) === exchange) continue;
      waiting.set(id, exchange);
      exchange.left++;
    }
    if (!exchange.streamable) return;
    exchange.older = activity.newest;
    if (activity.newest !== undefined) activity.newest.newer = exchange;
    activity.newest = exchange;
    if (exchange.tokens.length === 0) return;
    const tokens = (activity.tokens ??= new TurnoverMap());
    for (const token of exchange.tokens) if (!tokens.has(token)) tokens.set(token, exchange);
  }

  /**
   * The exchange a message the server sends (neither an answer nor push) goes to: the one its
   * progress token names, else the newest streamable one, if any.
   */
  carrierOf(token: string | undefined): Exchange | undefined {
    const activity = this.activity;
    if (activity === undefined) return undefined;
    return (token !== undefined ? activity.tokens?.get(token) : undefined) ?? activity.newest;
  }

  /** The POST that waits for the answer with `id`, if one does. */
  waiterOf(id: string): Exchange | undefined {
    return this.activity?.waiting?.get(id);
  }

  /** The POST that waits for an answer with one of `ids` (one answer, or a batch's), if any. */
  waiterOfAny(ids: readonly string[]): Exchange | undefined {
    const waiting = this.activity?.waiting;
    if (waiting === undefined) return undefined;
    for (let i = 0; i < ids.length; i++) {
      const exchange = waiting.get(ids[i]!);
      if (exchange !== undefined) return exchange;
    }
    return undefined;
  }

  /** `exchange` no longer waits for the answers with `ids` (answered, or cancelled). */
  answered(exchange: Exchange, ids: readonly string[]): void {
    const waiting = this.activity?.waiting;
    if (waiting === undefined) return;
    for (const id of ids) {
      if (waiting.get(id) !== exchange) continue;
      waiting.delete(id);
      exchange.left--;
    }
  }

  /** The session's own (GET) stream, when it has one. */
  get standalone(): SseStream | undefined {
    return this.activity?.standalone;
  }

  get maxMessageBytes(): number {
    return this.owner.maxMessageBytes;
  }

  /** The handler's members are called as its methods, never copied (see core's `Transport`). */
  get callsHandlerMethods(): true {
    return true;
  }

  start(h: TransportHandler): Promise<void> {
    if (this.handler !== undefined) {
      return Promise.reject(new Error('Transport already started'));
    }
    this.handler = h;
    const activity = this.activity;
    const inbox = activity?.inbox;
    if (inbox === undefined) return Promise.resolve();
    activity!.inbox = undefined;
    for (const message of inbox) h.onMessage(message);
    if (activity!.unused && this.activity === activity) this.activity = undefined;
    return Promise.resolve();
  }

  send(message: string): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('HTTP session closed'));
    return this.owner.route(this, message);
  }

  close(reason?: unknown): Promise<void> {
    return this.owner.closeSession(this, reason);
  }

  /**
   * Hands a message to the server, or keeps it until `start`. With `parsed` (what the server's
   * parser made of it), a handler that parses with that same function takes it as it is.
   */
  deliver(text: string, parsed?: ParseResult): void {
    const h = this.handler;
    if (h === undefined) (this.activityState().inbox ??= []).push(text);
    else if (parsed !== undefined && h.onParsed !== undefined && h.parse === this.owner.parse) {
      h.onParsed(parsed, text);
    } else h.onMessage(text);
  }

  /** A POST no longer waits for answers; an idle session keeps no empty set. */
  forget(exchange: Exchange): void {
    const exchanges = this.exchanges;
    if (exchanges === undefined) return;
    this.answered(exchange, exchange.ids);
    if (!exchanges.delete(exchange)) return;
    if (exchange.streamable) {
      const activity = this.activity!;
      const { older, newer } = exchange;
      if (older !== undefined) older.newer = newer;
      if (newer !== undefined) newer.older = older;
      else activity.newest = older;
      exchange.older = exchange.newer = undefined;
      const tokens = activity.tokens;
      for (const token of exchange.tokens) {
        if (tokens?.get(token) === exchange) tokens.delete(token);
      }
    }
    if (exchanges.size === 0) this.exchanges = undefined;
  }

  /** Whether a POST of the session still waits for answers. */
  get busy(): boolean {
    return this.exchanges !== undefined && this.exchanges.size > 0;
  }

  /**
   * Whether its client is there: its GET stream is open, or a POST still waits with its client
   * connected. A session whose client went away is idle even while its handlers run.
   */
  get connected(): boolean {
    if (this.standalone?.open === true) return true;
    const exchanges = this.exchanges;
    if (exchanges === undefined) return false;
    for (const exchange of exchanges.keys()) if (!exchange.gone) return true;
    return false;
  }
}

/**
 * The session class of one handler: its owner is a getter on the class's prototype, not a field
 * of each session (8 bytes less per session on a 64-bit heap, where an idle session takes 56).
 *
 * @param owner - the handler's side of its sessions
 * @returns a class whose sessions belong to `owner`
 */
export function sessionClass(
  owner: SessionOwner,
): new (
  id: string | undefined,
  streamId: string | undefined,
  origin: SessionOrigin | undefined,
) => HttpSession {
  return class HandlerSession extends HttpSession {
    get owner(): SessionOwner {
      return owner;
    }
  };
}
