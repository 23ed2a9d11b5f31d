/**
 * Scenario 13: big messages. One call in flight echoing a string of `size` bytes, over HTTP,
 * Streamable HTTP (one session), WebSocket or stdio, to a raw or a kit server child (CPU 1); the client (this process, CPU 0)
 * is the same plain client for both. Value: MB/s of payload echoed. Beside it, `held`: the
 * server's peak memory in use while handling one message (heap + external, above a GC'd
 * baseline) divided by the message size, i.e. how many copies of the message it holds at once.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kit, nodeCommand, startServerChild } from '../common.mjs';
import { median } from '../harness.mjs';
import { decoder } from '../stdio-frames.mjs';

const SERVER_FILE = fileURLToPath(new URL('../children/echo-server.mjs', import.meta.url));
const LIMIT = 64 * 1024 * 1024;

/** The message sizes: label → bytes. */
export const SIZES = {
  '1KiB': 1024,
  '64KiB': 64 * 1024,
  '1MiB': 1024 ** 2,
  '16MiB': 16 * 1024 ** 2,
};

/** A plain client over `transport`: `{ call(method, params), close() }`. */
async function connect(transport, impl) {
  const args = [transport, impl];
  if (transport === 'stdio') {
    const [cmd, argv] = nodeCommand(SERVER_FILE, args, 1, ['--expose-gc']);
    const child = spawn(cmd, argv, { stdio: ['pipe', 'pipe', 'inherit'] });
    const calls = correlator((text) => child.stdin.write(`${text}\n`));
    child.stdout.on('data', decoder('newline', calls.onAnswer));
    return {
      call: calls.call,
      close: () => {
        child.stdin.end();
        child.kill('SIGKILL');
      },
    };
  }
  const server = await startServerChild(SERVER_FILE, args, { cpu: 1, nodeArgs: ['--expose-gc'] });
  if (transport === 'ws') {
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`, { maxPayload: LIMIT });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const calls = correlator((text) => ws.send(text));
    ws.on('message', (data) => calls.onAnswer(data.toString()));
    const close = () => {
      ws.terminate();
      return server.stop();
    };
    return { call: calls.call, close };
  }
  const { Pool } = await import('undici');
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 1 });
  let id = 0;
  let headers = { 'content-type': 'application/json' };
  const post = async (body) => pool.request({ path: '/', method: 'POST', headers, body });
  if (transport === 'streamable') {
    // One session, started by `initialize`; the raw server answers it like any call.
    headers = { ...headers, accept: 'application/json, text/event-stream' };
    const res = await post('{"jsonrpc":"2.0","id":0,"method":"initialize"}');
    await res.body.text();
    const session = res.headers['mcp-session-id'];
    if (session !== undefined) headers = { ...headers, 'mcp-session-id': session };
  }
  return {
    async call(method, params) {
      const res = await post(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
      const answer = JSON.parse(await res.body.text());
      if (answer.error !== undefined) throw new Error(answer.error.message);
      return answer.result;
    },
    close: async () => {
      await pool.close();
      await server.stop();
    },
  };
}

/** Sends requests with `write(text)` and settles them by id from `onAnswer(text)`. */
function correlator(write) {
  const pending = new Map();
  let id = 0;
  return {
    call: (method, params) =>
      new Promise((resolve, reject) => {
        pending.set(++id, { resolve, reject });
        write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      }),
    onAnswer(text) {
      const answer = JSON.parse(text);
      const waiter = pending.get(answer.id);
      pending.delete(answer.id);
      if (answer.error !== undefined) waiter?.reject(new Error(answer.error.message));
      else waiter?.resolve(answer.result);
    },
  };
}

/** Measures `impl` (`"raw 1MiB"`, `"kit 16MiB"`, …) over `transport`. */
export async function run(transport, implAndSize, config) {
  const [impl, label] = implAndSize.split(' ');
  const size = SIZES[label];
  if (impl === 'kit') await kit('@jsonrpc-kit/server', 'createServer');
  const client = await connect(transport, impl);
  try {
    const params = ['x'.repeat(size)];
    const echoed = await client.call('echo', params);
    if (echoed?.[0]?.length !== size) throw new Error('wrong echo');
    // Move about `config.bytes` of payload, at least 3 calls and at most 2,000. Before them,
    // unmeasured, as many calls again, and up to 20,000 for small messages: a 1 KiB echo is
    // timed on warm code only after some 20,000 calls (with 2,000, the JIT's work still shows
    // as 8-14% of the kit's time, though it is no cost a call pays), as in the other rows.
    const calls = Math.max(3, Math.min(2_000, Math.round(config.bytes / size)));
    const warmup = Math.max(calls, Math.min(20_000, Math.round(config.bytes / size)));
    for (let i = 0; i < warmup; i++) await client.call('echo', params);
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await client.call('echo', params);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const held = [];
    for (let i = 0; i < config.memoryRounds; i++) {
      await client.call('gc');
      await client.call('echoMeasured', params);
      held.push((await client.call('peak')) / size);
    }
    return { value: (size * calls) / seconds / 1e6, extra: { held: median(held), calls } };
  } finally {
    await client.close();
  }
}
