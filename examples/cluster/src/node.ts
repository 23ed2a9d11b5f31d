#!/usr/bin/env node
/**
 * One process of the chat cluster: a WebSocket server whose `chat.send` publishes through Redis,
 * and whose Redis subscription pushes every message to this process's own sockets; and a worker
 * of the `cluster-jobs` queue. `node dist/node.js <redis-url> <name> [port] [host]` prints its URL first.
 *
 * @module
 */
import type { JsonRpcParams } from '@jsonrpc-kit/core';
import { createRedisFanout, createRedisQueueWorkerTransport } from '@jsonrpc-kit/redis';
import { createServer } from '@jsonrpc-kit/server';
import { createWebSocketServer } from '@jsonrpc-kit/transport-ws';

/** A chat message as pushed to clients (`chat.message`). */
export interface ClusterMessage {
  readonly from: string;
  readonly text: string;
  /** The process that took the `chat.send`. */
  readonly via: string;
}

async function main(): Promise<void> {
  const [
    redisUrl = 'redis://127.0.0.1:6379',
    name = `node-${process.pid}`,
    port = '0',
    host = '127.0.0.1',
  ] = process.argv.slice(2);
  const fanout = await createRedisFanout({ url: redisUrl, channelPrefix: 'cluster-chat:' });

  const chat = createServer();
  chat.method('chat.send', async ({ from, text }: { from: string; text: string }) => {
    const message: ClusterMessage = { from: String(from), text: String(text), via: name };
    await fanout.publish('room', message);
    return true;
  });
  const wss = createWebSocketServer(chat, { port: Number(port), host });
  await fanout.subscribe(
    'room',
    (item) => void wss.broadcast('chat.message', item as JsonRpcParams),
  );
  await wss.ready;

  // Background jobs any process may answer: the queue transport.
  const jobs = createServer();
  jobs.method('jobs.wordCount', ([text]: [string]) => ({
    words: text.split(/\s+/).length,
    by: name,
  }));
  const worker = createRedisQueueWorkerTransport({
    url: redisUrl,
    queue: 'cluster-jobs',
    consumer: name,
  });
  jobs.connect(worker);

  process.stdout.write(`ws://${host === '0.0.0.0' ? '127.0.0.1' : host}:${wss.port}/\n`);
  const stop = (): void => {
    void Promise.allSettled([wss.close(), fanout.close(), worker.close()]).then(() =>
      process.exit(0),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`cluster node: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
