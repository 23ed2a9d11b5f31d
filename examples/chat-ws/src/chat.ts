/**
 * The chat server: rooms of members, each member one WebSocket connection. Joining asks the
 * client to confirm (a server-to-client request); messages are pushed to every member of the
 * room (notifications).
 *
 * @module
 */
import { JsonRpcError, type Peer } from '@jsonrpc-kit/core';
import type { ConnectionLike } from '@jsonrpc-kit/core/engine';
import { createServer, type Server, type ServerOptions } from '@jsonrpc-kit/server';

/** Application error codes of the chat. */
export const ChatError = {
  /** The client declined to join. */
  JoinDeclined: 1001,
  /** The caller is not a member of the room. */
  NotInRoom: 1002,
  /** Bad room name, member name or text. */
  BadInput: 1003,
} as const;

/** Longest room name, member name, or message text. */
export const MAX_TEXT_LENGTH = 1_000;

/** What `chat.join` answers. */
export interface JoinResult {
  readonly room: string;
  readonly members: readonly string[];
}

/** A message as the server pushes it (`chat.message`). */
export interface ChatMessage {
  readonly room: string;
  readonly from: string;
  readonly text: string;
  readonly at: string;
}

/** What the server asks a client before it joins (`chat.confirmJoin`). */
export interface ConfirmJoinParams {
  readonly room: string;
  readonly name: string;
  readonly members: readonly string[];
}

/** A chat server: the kit's server plus the rooms. */
export interface ChatServer {
  /** The JSON-RPC server; serve it over WebSocket. */
  readonly server: Server;
  /**
   * The member names of a room.
   *
   * @param room - the room
   * @returns the names, in joining order
   */
  members(room: string): string[];
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TEXT_LENGTH) {
    throw new JsonRpcError(
      ChatError.BadInput,
      `Expected ${what}: 1 to ${MAX_TEXT_LENGTH} characters`,
    );
  }
  return value;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * Creates the chat server.
 *
 * Methods: `chat.join({ room, name })` (asks the client `chat.confirmJoin` first), `chat.send({
 * room, text })`, `chat.leave({ room })`. Notifications pushed to members: `chat.message`,
 * `chat.joined`, `chat.left`.
 *
 * @param options - server options
 * @returns the chat server
 * @example
 * ```ts
 * const chat = createChatServer();
 * const wss = createWebSocketServer(chat.server, { port: 0, host: '127.0.0.1' });
 * ```
 */
export function createChatServer(options?: ServerOptions): ChatServer {
  const server = createServer(options);
  /** room → member peer → name */
  const rooms = new Map<string, Map<Peer, string>>();

  function broadcast(room: string, method: string, params: object): number {
    const members = rooms.get(room);
    if (members === undefined) return 0;
    for (const peer of members.keys()) {
      // A member whose socket just dropped is removed when its connection closes.
      peer.notify(method, params as Record<string, unknown>).catch(() => {});
    }
    return members.size;
  }

  function leave(room: string, peer: Peer): boolean {
    const members = rooms.get(room);
    const name = members?.get(peer);
    if (members === undefined || name === undefined) return false;
    members.delete(peer);
    if (members.size === 0) rooms.delete(room);
    else broadcast(room, 'chat.left', { room, name });
    return true;
  }

  function peerOf(ctx: { peer: Peer | undefined }): Peer {
    if (ctx.peer === undefined) {
      throw new JsonRpcError(ChatError.BadInput, 'The chat needs a duplex connection (WebSocket)');
    }
    return ctx.peer;
  }

  server.method('chat.join', async (params: unknown, ctx): Promise<JoinResult> => {
    const p = record(params);
    const room = text(p.room, 'a room name');
    const name = text(p.name, 'a member name');
    const peer = peerOf(ctx);
    const current = [...(rooms.get(room)?.values() ?? [])];
    const answer = await peer.request<{ accept?: unknown }>(
      'chat.confirmJoin',
      { room, name, members: current } satisfies ConfirmJoinParams,
      { timeout: 5_000, signal: ctx.signal },
    );
    if (record(answer).accept !== true) {
      throw new JsonRpcError(ChatError.JoinDeclined, 'Join declined', { room });
    }
    let members = rooms.get(room);
    if (members === undefined) rooms.set(room, (members = new Map()));
    if (!members.has(peer)) {
      members.set(peer, name);
      const connection = peer as Partial<ConnectionLike>;
      void connection.closed?.then(() => leave(room, peer));
    }
    broadcast(room, 'chat.joined', { room, name });
    return { room, members: [...members.values()] };
  });

  server.method('chat.send', (params: unknown, ctx) => {
    const peer = peerOf(ctx);
    const p = record(params);
    const room = text(p.room, 'a room name');
    const body = text(p.text, 'a message');
    const from = rooms.get(room)?.get(peer);
    if (from === undefined) throw new JsonRpcError(ChatError.NotInRoom, 'Not in room', { room });
    const message: ChatMessage = { room, from, text: body, at: new Date().toISOString() };
    return { delivered: broadcast(room, 'chat.message', message) };
  });

  server.method('chat.leave', (params: unknown, ctx) => {
    const room = text(record(params).room, 'a room name');
    return { left: leave(room, peerOf(ctx)) };
  });

  return {
    server,
    members: (room) => [...(rooms.get(room)?.values() ?? [])],
  };
}
