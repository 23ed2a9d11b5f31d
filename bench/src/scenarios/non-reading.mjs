/**
 * Scenario 7: a peer sends requests and never reads the answers. The server (a child process)
 * should stop reading it instead of buffering every answer: its RSS growth stays bounded however
 * many requests the peer sends.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../common.mjs';

const CHILD_FILE = fileURLToPath(new URL('../children/non-reading-server.mjs', import.meta.url));

/** Each request carries 100 bytes of params, which the answer echoes. */
function requests(count) {
  const pad = 'x'.repeat(100);
  const lines = [];
  for (let id = 0; id < count; id++) {
    lines.push(`{"jsonrpc":"2.0","method":"echo","params":["${pad}"],"id":${id}}`);
  }
  return lines;
}

function startChild(transport) {
  const [cmd, args] = nodeCommand(CHILD_FILE, [transport], 1);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const rss = [];
  let port;
  let tail = '';
  const waiters = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    const lines = (tail + chunk).split('\n');
    tail = lines.pop();
    for (const line of lines) {
      if (line.startsWith('rss ')) rss.push(Number(line.slice(4)));
      else if (line.startsWith('port ')) port = Number(line.slice(5));
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async (check, what) => {
    for (let i = 0; i < 200 && !check(); i++) {
      await new Promise((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    if (!check()) throw new Error(`server child: no ${what}`);
  };
  return { child, rss, until, port: () => port };
}

/** Opens the peer: something to write requests to that never reads what comes back. */
async function openPeer(transport, server) {
  if (transport === 'stdio') {
    server.child.stdout.pause();
    return { write: (lines) => server.child.stdin.write(`${lines.join('\n')}\n`), close() {} };
  }
  await server.until(() => server.port() !== undefined, 'port');
  if (transport === 'ws') {
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`ws://127.0.0.1:${server.port()}/`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws._socket.pause();
    return {
      write: (lines) => {
        for (const line of lines) ws.send(line);
      },
      close: () => ws.terminate(),
    };
  }
  const socket = connect(server.port(), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  return { write: (lines) => socket.write(`${lines.join('\n')}\n`), close: () => socket.destroy() };
}

/** Sends `config.requests` requests, never reads; value is the server's RSS growth in MB. */
export async function run(transport, config) {
  const server = startChild(transport);
  try {
    await server.until(() => server.rss.length >= 3, 'rss report');
    const before = server.rss.at(-1);
    const peer = await openPeer(transport, server);
    const all = requests(config.requests);
    for (let i = 0; i < all.length; i += 1000) peer.write(all.slice(i, i + 1000));
    // Watch until the server has been flat for a second (or the time bound passes).
    const end = Date.now() + config.watchMs;
    let flatSince = Date.now();
    let last = server.rss.at(-1);
    while (Date.now() < end && Date.now() - flatSince < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = server.rss.at(-1);
      if (Math.abs(now - last) > 2 ** 20) flatSince = Date.now();
      last = now;
    }
    const peak = Math.max(...server.rss.slice(server.rss.indexOf(before)));
    peer.close();
    const growthMB = (peak - before) / 2 ** 20;
    return {
      value: growthMB,
      extra: { requests: config.requests, beforeMB: before / 2 ** 20, peakMB: peak / 2 ** 20 },
    };
  } finally {
    server.child.kill('SIGKILL');
  }
}
