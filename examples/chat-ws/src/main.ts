/**
 * The chat, end to end: starts the server on 127.0.0.1, connects two members, joins a room (the
 * server asks each member to confirm), sends messages pushed to every member, then restarts the
 * server on the same port and shows the members reconnecting with backoff and joining again.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { createWebSocketServer, type JsonRpcWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { type ChatMessage, createChatServer } from './chat.js';
import { connectMember, type Log, MEMBER_RECONNECT } from './member.js';

/** How long the server stays down during the restart, in ms. */
export const DOWNTIME_MS = 600;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`chat-ws: ${what}`);
}

async function until(condition: () => boolean, what: string, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`chat-ws: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function startServer(port: number): Promise<JsonRpcWebSocketServer> {
  const chat = createChatServer();
  const wss = createWebSocketServer(chat.server, { port, host: '127.0.0.1' });
  await wss.ready;
  return wss;
}

/**
 * Runs the example.
 *
 * @param log - where to print
 * @param listenPort - where the server listens, 0 for a port the system picks; the restart keeps
 *   the port
 * @returns resolves when done
 * @throws Error when a step does not happen as it must
 * @example
 * ```ts
 * await run(console.log);
 * ```
 */
export async function run(log: Log = console.log, listenPort = 0): Promise<void> {
  let wss = await startServer(listenPort);
  const port = wss.port;
  const url = `ws://127.0.0.1:${port}/`;
  log(`chat-ws: listening on ${url}`);
  const inbox = { alice: [] as ChatMessage[], bob: [] as ChatMessage[] };
  let rejoined = 0;
  const alice = connectMember({
    url,
    name: 'alice',
    log,
    onMessage: (m) => {
      inbox.alice.push(m);
      log(`[alice] got "${m.text}" from ${m.from}`);
    },
    onRejoined: () => rejoined++,
  });
  const bob = connectMember({
    url,
    name: 'bob',
    log,
    onMessage: (m) => {
      inbox.bob.push(m);
      log(`[bob] got "${m.text}" from ${m.from}`);
    },
    onRejoined: () => rejoined++,
  });
  try {
    await alice.join('lobby');
    const joined = await bob.join('lobby');
    check(joined.members.join() === 'alice,bob', 'members after joining');

    await bob.send('lobby', 'hi alice');
    await until(() => inbox.alice.length === 1 && inbox.bob.length === 1, 'the broadcast');

    const { delay, maxDelay, jitter } = MEMBER_RECONNECT;
    log(`restarting the server on port ${port} (down for ${DOWNTIME_MS} ms)`);
    log(
      `members reconnect with exponential backoff: ${delay} ms, doubling up to ${maxDelay} ms, jitter ${jitter}`,
    );
    await wss.close({ timeout: 100 });
    await until(() => alice.transport.state === 'reconnecting', 'alice to notice');
    await new Promise((resolve) => setTimeout(resolve, DOWNTIME_MS));
    wss = await startServer(port);
    log('server is back');
    await until(() => rejoined === 2, 'both members to join again');

    await alice.send('lobby', 'welcome back, bob');
    await until(() => inbox.bob.length === 2, 'the broadcast after the restart');
    check(inbox.bob[1]?.text === 'welcome back, bob', 'message after restart');
  } finally {
    await Promise.all([alice.close(), bob.close()]);
    await wss.close({ timeout: 100 });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run(console.log).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
