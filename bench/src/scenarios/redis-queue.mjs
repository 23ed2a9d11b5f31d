/**
 * Scenario 16: calls through a Redis Streams queue (a real redis-server on 127.0.0.1), 64 in
 * flight, served by 1 or 2 workers in this process. The raw baseline does the same Redis work
 * with bare @redis/client: XADD per request, XREADGROUP per worker, XADD of the answer to the
 * caller's reply stream, XACK, a blocking XREAD on the reply stream and a correlation map.
 */

import { findRedisServer, startRedisServer } from '@jsonrpc-kit/redis/testing';
import { add, check, kit, lanes, METHOD, PARAMS } from '../common.mjs';

function entriesOf(reply) {
  if (reply === null) return [];
  const list = Array.isArray(reply) ? reply[0][1] : Object.values(reply)[0];
  return list.map(([id, fields]) => {
    const out = { id };
    for (let i = 0; i < fields.length; i += 2) out[fields[i]] = fields[i + 1];
    return out;
  });
}

async function rawSetup(url, workers) {
  const { createClient } = await import('@redis/client');
  const open = async () => {
    // As the kit's connections: no per-command timer (@redis/client arms a 5 s one by default).
    const c = createClient({ url, commandOptions: { timeout: 0 } });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  const queue = 'bench-raw';
  const replyTo = `${queue}:reply:caller`;
  const commands = await open();
  await commands.sendCommand(['XGROUP', 'CREATE', queue, 'g', '0', 'MKSTREAM']);
  let running = true;
  const connections = [commands];
  for (let w = 0; w < workers; w++) {
    const reader = await open();
    const writer = await open();
    connections.push(reader, writer);
    void (async () => {
      while (running) {
        const reply = await reader
          .sendCommand([
            'XREADGROUP',
            'GROUP',
            'g',
            `w${w}`,
            'COUNT',
            '64',
            'BLOCK',
            '100',
            'STREAMS',
            queue,
            '>',
          ])
          .catch(() => null);
        // Answer the whole read at once: the commands pipeline on the writer connection.
        const sent = [];
        for (const entry of entriesOf(reply)) {
          const m = JSON.parse(entry.b);
          const answer = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) });
          sent.push(writer.sendCommand(['XADD', entry.r, '*', 'c', entry.c, 'b', answer]));
          sent.push(writer.sendCommand(['XACK', queue, 'g', entry.id]));
        }
        await Promise.all(sent).catch(() => {}); // rejects only once closed
      }
    })();
  }
  const replies = await open();
  connections.push(replies);
  const pending = new Map();
  void (async () => {
    let last = '0-0';
    while (running) {
      const reply = await replies
        .sendCommand(['XREAD', 'COUNT', '256', 'BLOCK', '100', 'STREAMS', replyTo, last])
        .catch(() => null);
      for (const entry of entriesOf(reply)) {
        last = entry.id;
        const resolve = pending.get(entry.c);
        pending.delete(entry.c);
        resolve?.(JSON.parse(entry.b).result);
      }
    }
  })();
  let next = 0;
  return {
    call: () =>
      new Promise((resolve) => {
        const c = String(next++);
        pending.set(c, resolve);
        const body = JSON.stringify({ jsonrpc: '2.0', id: next, method: METHOD, params: PARAMS });
        commands.sendCommand(['XADD', queue, '*', 'c', c, 'r', replyTo, 'b', body]).catch(() => {});
      }),
    close: async () => {
      running = false;
      for (const c of connections) c.destroy();
    },
  };
}

async function kitSetup(url, workers) {
  const { createRedisQueueClientTransport, createRedisQueueWorkerTransport } = await kit(
    '@jsonrpc-kit/redis',
    'createRedisQueueClientTransport',
    'createRedisQueueWorkerTransport',
  );
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const queue = 'bench-kit';
  const connections = [];
  for (let w = 0; w < workers; w++) {
    const server = createServer({});
    server.method(METHOD, add);
    connections.push(server.connect(createRedisQueueWorkerTransport({ url, queue, blockMs: 100 })));
  }
  const client = createClient(createRedisQueueClientTransport({ url, queue, blockMs: 100 }), {});
  return {
    call: () => client.request(METHOD, PARAMS),
    close: async () => {
      await client.close();
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

/** Measures one implementation with `workers` workers: warm-up, then `config.calls` calls. */
export async function run(impl, config, workers) {
  if (impl === 'kit') await kit('@jsonrpc-kit/redis', 'createRedisQueueClientTransport');
  if (findRedisServer() === undefined) return { skip: 'n/a: redis-server not installed' };
  const redis = await startRedisServer();
  let bench;
  try {
    bench = await (impl === 'raw' ? rawSetup : kitSetup)(redis.url, workers);
    check(await bench.call());
    await lanes(bench.call, 64, config.warmupCalls);
    return { value: await lanes(bench.call, 64, config.calls) };
  } finally {
    try {
      await bench?.close();
    } catch {}
    await redis.stop();
  }
}
