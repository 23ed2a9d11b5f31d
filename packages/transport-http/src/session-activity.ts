/**
 * A POST of a Streamable HTTP session waiting for its answers (`Exchange`), and what a session
 * holds only while it has such POSTs or a stream (`SessionActivity`).
 *
 * @module
 */
import type { FifoQueue, TurnoverMap } from '@jsonrpc-kit/core/engine';
import type { SseStream } from './sse-stream.js';
import type { StreamableReply } from './streamable-reply.js';

/** One POST that holds requests, waiting for their answers. */
export interface Exchange {
  /** The ids (as JSON text) of its requests. */
  readonly ids: readonly string[];
  /**
   * How many of them are still unanswered: those its session's `waiting` table gives to it (an id
   * waits in one POST of a session at a time, so the table tells which; no set of its own).
   */
  left: number;
  /** Progress tokens (as JSON text) of its requests. */
  readonly tokens: readonly string[];
  readonly batch: boolean;
  /** Whether its answers may come as a stream: then it may also carry the server's messages. */
  readonly streamable: boolean;
  /** The streamable exchange of its session that started before it, while both wait. */
  older: Exchange | undefined;
  /** The streamable exchange of its session that started after it, while both wait. */
  newer: Exchange | undefined;
  /**
   * Answers collected while not streaming; made with the first (most POSTs get one: an array
   * grown from empty would reserve room for 16).
   */
  answers: string[] | undefined;
  stream: SseStream | undefined;
  done: boolean;
  /** Its client went away (its answers may still go to the event store). */
  gone: boolean;
  readonly respond: (reply: StreamableReply) => void;
  readonly headers: readonly string[];
}

/**
 * What a session holds only while POSTs wait for answers, or once it has had a GET stream, push
 * waiting for one, or messages before `start`: made on first use, and let go of once it holds
 * nothing, so that an idle session without a stream holds nothing of it.
 */
export class SessionActivity {
  /**
   * The POSTs waiting for answers. A core `TurnoverMap`, not a `Set`, as `waiting`: under a steady
   * load they live long and gain and lose an entry per POST.
   */
  exchanges: TurnoverMap<Exchange, true> | undefined = undefined;
  /**
   * Which of them waits for each id (as JSON text): an answer finds its POST in one lookup, and
   * an id can wait in one POST of the session at a time. Set while `exchanges` is.
   */
  waiting: TurnoverMap<string, Exchange> | undefined = undefined;
  /**
   * Which streamable exchange a progress token (as JSON text) names: the first still waiting
   * that named it. A server message that names one goes there in one lookup.
   */
  tokens: TurnoverMap<string, Exchange> | undefined = undefined;
  /**
   * The newest streamable exchange: a server message that names no waiting one goes there. The
   * streamable exchanges are a list through their `older` and `newer`, so that the next newest
   * is at hand when it ends.
   */
  newest: Exchange | undefined = undefined;
  /** Messages that arrived before `start`. */
  inbox: string[] | undefined = undefined;
  standalone: SseStream | undefined = undefined;
  /** The id of the session's own stream, kept across reconnections. */
  standaloneId: string | undefined = undefined;
  /** Push sent before the GET stream first opened (bounded), sent when it opens. */
  backlog: FifoQueue<string> | undefined = undefined;
  /** Set while a `Last-Event-ID` replay runs: push waits for it, so nothing slips between. */
  resuming: Promise<void> | undefined = undefined;

  /** Whether it holds nothing (its session may let go of it). */
  get unused(): boolean {
    return (
      this.exchanges === undefined &&
      this.waiting === undefined &&
      this.inbox === undefined &&
      this.standalone === undefined &&
      this.standaloneId === undefined &&
      this.backlog === undefined &&
      this.resuming === undefined
    );
  }
}
