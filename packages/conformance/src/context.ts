/**
 * What a case works with: the target, its configuration, and raw exchanges over its transport.
 *
 * @module
 */
import type { ReadBudget } from './budget.js';
import type { Answered, Outcome } from './check.js';
import type { ConformanceConfig, MethodRole } from './config.js';
import type { Framing } from './framing.js';
import { type HttpAnswer, type HttpSendOptions, httpSend } from './http-target.js';
import type { Inbox, Received } from './inbox.js';
import { pause } from './pause.js';
import { type StdioConnection, spawnStdio } from './stdio-target.js';
import { openWs, type WsConnection } from './ws-target.js';

/** Where the target is and how to reach it. */
export type Target =
  | {
      /** The URL of an HTTP endpoint (POST). */
      readonly http: string;
    }
  | {
      /** The URL of a WebSocket endpoint. */
      readonly ws: string;
    }
  | {
      /** A shell command that starts the target, speaking on its stdin and stdout. */
      readonly stdio: string;
      /** How messages are framed on the pipes. */
      readonly framing: Framing;
    };

/** The transport of a target. */
export type TransportKind = 'http' | 'ws' | 'stdio';

/**
 * The transport of a target.
 *
 * @param target - the target
 * @returns `'http'`, `'ws'` or `'stdio'`
 */
export function transportOf(target: Target): TransportKind {
  return 'http' in target ? 'http' : 'ws' in target ? 'ws' : 'stdio';
}

/** A duplex connection: WebSocket or stdio. */
export interface DuplexConnection {
  readonly inbox: Inbox;
  send(text: string): void;
  readonly isClosed: boolean;
  close(): Promise<unknown>;
}

/** The tools a case gets. */
export interface CaseContext {
  readonly target: Target;
  readonly kind: TransportKind;
  readonly config: ConformanceConfig;
  /** The target's name for a role (cases that need a role are skipped when it is `null`). */
  method(role: MethodRole): string;
  /**
   * Sends one raw message and collects what the target answers to it. Over HTTP that is the
   * response body; over WebSocket and stdio a follow-up request proves that nothing else is
   * coming.
   */
  exchange(text: string, expectAnswer: boolean): Promise<Answered & { readonly http?: HttpAnswer }>;
  /** One raw HTTP request to the target (HTTP targets only). */
  http(options: Omit<HttpSendOptions, 'timeoutMs'> & { timeoutMs?: number }): Promise<HttpAnswer>;
  /** The connection shared by the cases (WebSocket and stdio targets only). */
  duplex(): Promise<DuplexConnection>;
  /** A new WebSocket connection, closed after the case. */
  freshWs(): Promise<WsConnection>;
  /** A new stdio child, closed after the case. */
  freshStdio(): StdioConnection;
  /** Whether `connection` still answers a request. */
  alive(connection: DuplexConnection): Promise<boolean>;
  /** Waits for the next message on `connection`, up to the answer deadline. */
  next(connection: DuplexConnection, timeoutMs?: number): Promise<Received | undefined>;
  /** What every stdio child wrote to stdout that was not a frame, so far. */
  readonly stdoutGarbage: readonly string[];
}

/** A case of the conformance suite. */
export interface ConformanceCase {
  /** A stable id, `group.name`. */
  readonly id: string;
  /** What it checks, in a few words. */
  readonly title: string;
  /** The transports it applies to; all when absent. */
  readonly transports?: readonly TransportKind[];
  /** The method roles it needs; skipped when one is not configured. */
  readonly needs?: readonly MethodRole[];
  /** When the specification allows more than one answer, or says nothing: what is accepted. */
  readonly ambiguity?: string;
  /** Skips the case for this configuration, with a reason; `undefined` runs it. */
  readonly skipWhen?: (config: ConformanceConfig) => string | undefined;
  run(ctx: CaseContext): Promise<Outcome>;
}

/** The resources of one run, shared by the contexts of its cases. */
export interface RunState {
  shared: DuplexConnection | undefined;
  readonly garbage: string[];
  pings: number;
  /** The bytes read from the target in the current case (reset at each case's start). */
  readonly budget: ReadBudget;
}

/**
 * The share of a case's deadline (`timeoutMs`) one answer may take: the rest is left for what
 * follows it in the case (the follow-up request, a second exchange), so that a case fails with
 * what was missing rather than with its own deadline.
 */
export const ANSWER_SHARE: number = 0.6;

/**
 * How long one answer is waited for in a case whose deadline is `timeoutMs`.
 *
 * @param timeoutMs - the case's deadline
 * @returns {@link ANSWER_SHARE} of it, at least 1 ms
 */
export function answerWaitMs(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs * ANSWER_SHARE));
}

/**
 * The wait for one answer as a failure tells it: `3000 ms (60 % of the 5000 ms case deadline,
 * --timeout)`.
 *
 * @param timeoutMs - the case's deadline
 * @returns the text
 */
export function describeAnswerWait(timeoutMs: number): string {
  return `${answerWaitMs(timeoutMs)} ms (${Math.round(ANSWER_SHARE * 100)} % of the ${timeoutMs} ms case deadline, --timeout)`;
}

/** The follow-up request that proves the target has nothing more to say. */
function pingText(config: ConformanceConfig, id: string): string {
  const method = config.methods.subtract ?? 'conformance.ping';
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":[0,0],"id":${JSON.stringify(id)}}`;
}

function isAnswerTo(message: Received, id: string): boolean {
  try {
    const value = JSON.parse(message.text) as { id?: unknown };
    return typeof value === 'object' && value !== null && value.id === id;
  } catch {
    return false;
  }
}

/**
 * Creates the context of one case.
 *
 * @param target - the target
 * @param config - its configuration
 * @param state - the run's shared resources
 * @returns the context, and `dispose` to close what the case opened
 */
export function createContext(
  target: Target,
  config: ConformanceConfig,
  state: RunState,
): { ctx: CaseContext; dispose: () => Promise<void> } {
  const kind = transportOf(target);
  const opened: DuplexConnection[] = [];
  const answerMs = answerWaitMs(config.timeoutMs);
  /** How a wait for an answer is told in a failure: the figure and where it comes from. */
  const answerWait = describeAnswerWait(config.timeoutMs);
  const overtakenMs = Math.max(10 * config.quietMs, Math.floor(answerMs / 3));

  const openDuplex = async (): Promise<DuplexConnection> => {
    if ('ws' in target) return openWs(target.ws, answerMs, state.budget);
    if ('stdio' in target) return spawnStdio(target.stdio, target.framing, state.budget);
    throw new Error('this case needs a WebSocket or stdio target');
  };

  const next = (connection: DuplexConnection, timeoutMs = answerMs) =>
    connection.inbox.next(timeoutMs);

  /** Sends a ping and waits for its answer; returns the messages that arrived before it. */
  const ping = async (
    connection: DuplexConnection,
    extraWaitForFirst: boolean,
  ): Promise<{ before: string[]; answered: boolean }> => {
    const id = `conformance-ping-${++state.pings}`;
    connection.send(pingText(config, id));
    const before: string[] = [];
    let answered = false;
    let deadline = Date.now() + answerMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const message = await next(connection, left);
      if (message === undefined) break;
      if (isAnswerTo(message, id)) {
        answered = true;
        // An answer may still be on its way when the ping overtook it (a target that handles
        // messages concurrently): give it a while, not the whole deadline.
        if (extraWaitForFirst && before.length === 0) {
          deadline = Math.min(deadline, Date.now() + overtakenMs);
          continue;
        }
        break;
      }
      before.push(message.text);
      if (answered) break;
    }
    await pause(config.quietMs);
    for (const late of connection.inbox.drain()) {
      if (!isAnswerTo(late, id)) before.push(late.text);
    }
    return { before, answered };
  };

  const ctx: CaseContext = {
    target,
    kind,
    config,
    get stdoutGarbage() {
      const shared = (state.shared as Partial<StdioConnection> | undefined)?.garbage ?? [];
      const fresh = opened.flatMap((c) => (c as Partial<StdioConnection>).garbage ?? []);
      return [...state.garbage, ...shared, ...fresh];
    },
    method(role) {
      const name = config.methods[role];
      if (name === null) throw new Error(`methods.${role} is not configured`);
      return name;
    },
    next,
    async http(options) {
      if (!('http' in target)) throw new Error('this case needs an HTTP target');
      return httpSend(target.http, {
        timeoutMs: answerMs,
        waitText: answerWait,
        ...options,
        budget: state.budget,
      });
    },
    async duplex() {
      if (state.shared === undefined || state.shared.isClosed) {
        if (state.shared !== undefined) await closeShared(state);
        state.shared = await openDuplex();
      }
      return state.shared;
    },
    async freshWs() {
      if (!('ws' in target)) throw new Error('this case needs a WebSocket target');
      const connection = await openWs(target.ws, answerMs, state.budget);
      opened.push(connection);
      return connection;
    },
    freshStdio() {
      if (!('stdio' in target)) throw new Error('this case needs a stdio target');
      const connection = spawnStdio(target.stdio, target.framing, state.budget);
      opened.push(connection);
      return connection;
    },
    async alive(connection) {
      if (connection.isClosed) return false;
      return (await ping(connection, false)).answered;
    },
    async exchange(text, expectAnswer) {
      if ('http' in target) {
        const answer = await httpSend(target.http, {
          body: text,
          timeoutMs: answerMs,
          waitText: answerWait,
          budget: state.budget,
        });
        return { messages: answer.body.trim() === '' ? [] : [answer.body], http: answer };
      }
      const connection = await ctx.duplex();
      connection.inbox.drain();
      connection.send(text);
      const { before, answered } = await ping(connection, expectAnswer);
      let trouble: string | undefined;
      if (!answered) {
        trouble = connection.isClosed
          ? 'the connection closed'
          : `the target stopped answering: no answer to a follow-up request within ${answerWait}`;
      }
      return { messages: before, trouble };
    },
  };

  const dispose = async (): Promise<void> => {
    for (const connection of opened.splice(0)) await closeConnection(connection, state);
  };
  return { ctx, dispose };
}

async function closeConnection(connection: DuplexConnection, state: RunState): Promise<void> {
  await connection.close();
  const garbage = (connection as Partial<StdioConnection>).garbage;
  if (garbage) state.garbage.push(...garbage);
}

/**
 * Closes the shared connection of a run (after a failed case, and at the end).
 *
 * @param state - the run's shared resources
 * @returns resolves when closed
 */
export async function closeShared(state: RunState): Promise<void> {
  const shared = state.shared;
  state.shared = undefined;
  if (shared) await closeConnection(shared, state);
}
