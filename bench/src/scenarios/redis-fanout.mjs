/**
 * Scenario 17: one publish fanned out to 1,000 subscribers spread over 2 processes through Redis
 * pub/sub (a real redis-server on 127.0.0.1), in deliveries per second. The raw baseline does the
 * same with bare @redis/client: `PUBLISH` of `JSON.stringify(item)`, one `SUBSCRIBE` per process,
 * one `JSON.parse` per message and a loop over the process's listeners.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { findRedisServer, startRedisServer } from '@jsonrpc-kit/redis/testing';
import { kit } from '../common.mjs';

const CHILD = fileURLToPath(new URL('../children/fanout-subscriber.mjs', import.meta.url));
const PROCESSES = 2;
const SUBSCRIBERS = 1000;

function startChild(impl, url, items) {
  const child = spawn(
    process.execPath,
    [CHILD, impl, url, String(SUBSCRIBERS / PROCESSES), String(items)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const waitFor = (word) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${word}" within 20 s`)), 20_000);
      lines.on('line', (line) => {
        if (line !== word) return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => reject(new Error(`subscriber exited with ${code}`)));
    });
  const ready = waitFor('ready');
  const done = waitFor('done');
  done.catch(() => {});
  return { child, ready, done };
}

async function publisher(impl, url) {
  if (impl === 'raw') {
    const { createClient } = await import('@redis/client');
    const client = createClient({ url });
    client.on('error', () => {});
    await client.connect();
    return {
      publish: (item) => client.publish('bench:fanout', JSON.stringify(item)),
      close: () => client.destroy(),
    };
  }
  const { createRedisFanout } = await kit('@jsonrpc-kit/redis', 'createRedisFanout');
  const fanout = await createRedisFanout({ url, channelPrefix: 'bench:' });
  return { publish: (item) => fanout.publish('fanout', item), close: () => fanout.close() };
}

/** Measures one implementation: `config.items` publishes, each to 1,000 subscribers. */
export async function run(impl, config) {
  if (impl === 'kit') await kit('@jsonrpc-kit/redis', 'createRedisFanout');
  if (findRedisServer() === undefined) return { skip: 'n/a: redis-server not installed' };
  const redis = await startRedisServer();
  const children = [];
  let pub;
  try {
    for (let i = 0; i < PROCESSES; i++) children.push(startChild(impl, redis.url, config.items));
    await Promise.all(children.map((c) => c.ready));
    pub = await publisher(impl, redis.url);
    const start = process.hrtime.bigint();
    const sent = [];
    for (let n = 0; n < config.items; n++) sent.push(pub.publish({ n, text: 'hello' }));
    await Promise.all(sent);
    await Promise.all(children.map((c) => c.done));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { value: (config.items * SUBSCRIBERS) / seconds };
  } finally {
    try {
      await pub?.close();
    } catch {}
    for (const { child } of children) child.kill('SIGKILL');
    await redis.stop();
  }
}
