/**
 * Scenarios 18a and 18b: many idle Streamable HTTP sessions on one server child, opened by this
 * process with the same undici client for every server. A session is one `initialize` POST (the
 * answer carries its id) and nothing more; in 18b each session also holds its GET event stream
 * open. Value: the server's RSS growth per session after a full GC (the young generation of a
 * fixed size: see `MEMORY_NODE_ARGS`), in KiB; heap beside it.
 */
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import {
  INITIALIZE_TEXT,
  kit,
  MEMORY_NODE_ARGS,
  memoryGrowth,
  openMany,
  readStats,
  startServerChild,
} from '../common.mjs';
import { socketBudget } from './connections.mjs';

const SERVER_FILE = fileURLToPath(
  new URL('../children/streamable-sessions-server.mjs', import.meta.url),
);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sockets the sessions' POSTs share: sessions live in HTTP, not in sockets. */
const POST_SOCKETS = 8;
/** Bound on waiting for any answer's headers. */
const HEADERS_TIMEOUT_MS = 10_000;
const PROTOCOL_VERSION = '2025-06-18';

/** The JSON-RPC message of an answer that is JSON or one event of an event stream. */
function messageOf(text) {
  const data = /^data: ?(.*)$/m.exec(text);
  return JSON.parse(data === null ? text : data[1]);
}

/** Starts one session with an `initialize` POST; resolves its id after checking the answer. */
async function initialize(pool) {
  const response = await pool.request({
    path: '/',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: INITIALIZE_TEXT,
  });
  const text = await response.body.text();
  const id = response.headers['mcp-session-id'];
  if (response.statusCode !== 200 || typeof id !== 'string')
    throw new Error(`initialize: ${response.statusCode} ${text.slice(0, 200)}`);
  return { id, text };
}

/** Opens a session's GET event stream; resolves once its headers arrived (the body stays open). */
async function openStream(pool, id) {
  const response = await pool.request({
    path: '/',
    method: 'GET',
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': id,
      'mcp-protocol-version': PROTOCOL_VERSION,
    },
  });
  const type = String(response.headers['content-type']);
  if (response.statusCode !== 200 || !type.startsWith('text/event-stream')) {
    const text = await response.body.text();
    throw new Error(`GET stream: ${response.statusCode} ${type} ${text.slice(0, 200)}`);
  }
  response.body.on('error', () => {});
  return response;
}

/**
 * Idle sessions: `config.sessions` of them (with `streams`, each holding its GET stream, so one
 * socket each: bounded by the open-files limit as for `ws-idle`).
 *
 * @param {string} impl - `raw`, `kit` or `mcp-sdk`
 * @param {{ sessions: number, settleMs: number }} config
 * @param {boolean} streams - whether each session opens its GET event stream
 */
export async function runIdle(impl, config, streams) {
  const count = streams ? socketBudget(config.sessions) : config.sessions;
  if (impl === 'kit') await kit('@jsonrpc-kit/transport-http', 'createStreamableHttpNodeHandler');
  const server = await startServerChild(SERVER_FILE, [impl], {
    cpu: 1,
    nodeArgs: MEMORY_NODE_ARGS,
    timeoutMs: 15_000,
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const posts = new Pool(origin, { connections: POST_SOCKETS, headersTimeout: HEADERS_TIMEOUT_MS });
  const gets = streams
    ? new Pool(origin, { connections: count, headersTimeout: HEADERS_TIMEOUT_MS })
    : undefined;
  const open = async () => {
    const session = await initialize(posts);
    if (gets !== undefined) await openStream(gets, session.id);
    return session;
  };
  try {
    // One checked session before anything is measured: a broken path cannot look cheap.
    const first = await open();
    const answer = messageOf(first.text);
    if (answer.id !== 0 || answer.result?.protocolVersion !== PROTOCOL_VERSION)
      throw new Error(`wrong initialize answer: ${first.text.slice(0, 200)}`);
    const before = await readStats(server.port, true);
    const opened = await openMany(count - 1, open, POST_SOCKETS);
    if (new Set(opened.map((s) => s.id)).size !== count - 1) throw new Error('session ids repeat');
    await sleep(config.settleMs);
    const after = await readStats(server.port, true);
    const { rssKiB, heapKiB } = memoryGrowth(before, after, count - 1);
    return { value: rssKiB, extra: { heapKiB, sessions: count } };
  } finally {
    await gets?.destroy();
    await posts.destroy();
    await server.stop();
  }
}
