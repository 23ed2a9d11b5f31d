/**
 * A chat member: a client on a reconnecting WebSocket that confirms joins, receives pushed
 * messages, and joins its rooms again after reconnecting.
 *
 * @module
 */
import { type Client, createClient } from '@jsonrpc-kit/client';
import { MethodNotFoundError } from '@jsonrpc-kit/core';
import { type TapDirection, tapTransport } from '@jsonrpc-kit/core/testing';
import {
  createWebSocketTransport,
  type ReconnectOptions,
  type WebSocketTransport,
  type WebSocketTransportState,
} from '@jsonrpc-kit/transport-ws';
import type { ChatMessage, ConfirmJoinParams, JoinResult } from './chat.js';

/** Prints one line. */
export type Log = (line: string) => void;

/** Prints each message of a tapped transport as `→ text` (sent) or `← text` (received). */
const wire = (log: Log) => (direction: TapDirection, message: string) =>
  log(`${direction === 'sent' ? '→' : '←'} ${message}`);

/** How members reconnect in this example: exponential backoff from 100 ms up to 2 s. */
export const MEMBER_RECONNECT: ReconnectOptions = {
  strategy: 'exponential',
  delay: 100,
  maxDelay: 2_000,
  jitter: 0.2,
  maxAttempts: 20,
};

/** Options of {@link connectMember}. */
export interface MemberOptions {
  /** The chat server's URL. */
  readonly url: string;
  /** The member's name. */
  readonly name: string;
  /** Where the member prints its traffic and events; omit for silence. */
  readonly log?: Log;
  /** Whether to accept `chat.confirmJoin`. @default true */
  readonly acceptJoins?: boolean;
  /** Called with each message pushed by the server. */
  readonly onMessage?: (message: ChatMessage) => void;
  /** Called after the member has reconnected and joined its rooms again. */
  readonly onRejoined?: (rooms: readonly string[]) => void;
  /** The reconnect policy. @default MEMBER_RECONNECT */
  readonly reconnect?: ReconnectOptions;
}

/** A connected member. */
export interface Member {
  readonly name: string;
  readonly client: Client;
  readonly transport: WebSocketTransport;
  /** The transport's states so far, oldest first. */
  readonly states: readonly WebSocketTransportState[];
  join(room: string): Promise<JoinResult>;
  send(room: string, text: string): Promise<{ delivered: number }>;
  close(): Promise<void>;
}

/**
 * Connects a chat member.
 *
 * @param options - URL, name, callbacks
 * @returns the member
 * @example
 * ```ts
 * const alice = connectMember({ url, name: 'alice', onMessage: (m) => console.log(m.text) });
 * await alice.join('lobby');
 * await alice.send('lobby', 'hello');
 * ```
 */
export function connectMember(options: MemberOptions): Member {
  const log = options.log;
  const tag = `[${options.name}]`;
  const rooms = new Set<string>();
  const states: WebSocketTransportState[] = [];
  let reconnectStarted = 0;
  const transport = createWebSocketTransport({
    url: options.url,
    reconnect: options.reconnect ?? MEMBER_RECONNECT,
    heartbeat: false,
    onStateChange: (state, previous) => {
      states.push(state);
      if (state === 'reconnecting') reconnectStarted = Date.now();
      log?.(`${tag} connection ${previous} → ${state}`);
    },
    onReconnect: () => {
      log?.(
        `${tag} reconnected after ${Date.now() - reconnectStarted} ms; joining ${[...rooms].join(', ') || 'no rooms'} again`,
      );
      void Promise.all([...rooms].map((room) => join(room))).then(
        () => options.onRejoined?.([...rooms]),
        (error: unknown) => log?.(`${tag} could not join again: ${String(error)}`),
      );
    },
  });
  const client = createClient(
    log
      ? tapTransport(
          transport,
          wire((line) => log(`${tag} ${line}`)),
        )
      : transport,
    {
      callTimeout: 5_000,
      onRequest: (request) => {
        if (request.method !== 'chat.confirmJoin') throw new MethodNotFoundError();
        const params = request.params as unknown as ConfirmJoinParams;
        const accept = options.acceptJoins ?? true;
        log?.(
          `${tag} server asks: join ${params.room} with ${params.members.length} member(s)? ${accept ? 'yes' : 'no'}`,
        );
        return { accept };
      },
      onNotification: (notification) => {
        if (notification.method === 'chat.message') {
          options.onMessage?.(notification.params as unknown as ChatMessage);
        }
      },
    },
  );

  async function join(room: string): Promise<JoinResult> {
    const result = await client.request<JoinResult>('chat.join', { room, name: options.name });
    rooms.add(room);
    return result;
  }

  return {
    name: options.name,
    client,
    transport,
    states,
    join,
    send: (room, text) => client.request('chat.send', { room, text }),
    close: () => client.close(),
  };
}
