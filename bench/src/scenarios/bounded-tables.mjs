/**
 * Scenario 8b: cost per item of the kit's bounded tables as the number they keep grows from 100
 * to 10,000, in one process. Each table is full before the timing starts. A flat line means an
 * item costs the same however many are kept; one that grows means each walks the table.
 *
 * Tables:
 * - `event-store`: `append()` of transport-http's `createMemoryEventStore({ maxEvents })`, the
 *   store a Streamable HTTP endpoint keeps its stream events in for `Last-Event-ID` resumption;
 *   each event past the bound pushes out the oldest.
 * - `rate-limit-keys`: a call through the server's `rateLimit({ maxKeys })` middleware from a
 *   busy key (one remote address, say) while the table holds `maxKeys` keys.
 * - `progress-refresh`: a progress report for one call while that many calls wait under the
 *   client's safety-net timeout (core's `createPendingCalls`, `refresh()`: its wait starts again).
 * - `progress-route`: a progress notification a handler sends through a Streamable HTTP session
 *   (transport-http's `createStreamableHttpHandler`, fetch form, in-process) while that many of
 *   the session's POSTs wait for their answers; it names the newest one's progress token, and
 *   goes on that POST's event stream, which a reader drains.
 * - `invalid-answers`: an invalid answer (both `result` and `error`) to an id that no call waits
 *   for, from a hostile peer, taken by a client (`createClient` over core's memory transport)
 *   while that many of its calls wait.
 */
import { kit, until } from '../common.mjs';
import { timePerItem } from './cost.mjs';

/** The bounds measured: column label → items kept. */
const BOUNDS = { 100: 100, '1k': 1_000, '10k': 10_000 };
const TABLES = [
  'event-store',
  'rate-limit-keys',
  'progress-refresh',
  'progress-route',
  'invalid-answers',
];
/** Every measured case: `<table>/<bound>`. */
export const BOUNDED_TABLE_CASES = TABLES.flatMap((table) =>
  Object.keys(BOUNDS).map((bound) => `${table}/${bound}`),
);
/** Items per timed round. */
const ROUND = 100;

/** A round of `ROUND` events stored, in a store full of `bound` events. */
async function eventStore(bound) {
  const { createMemoryEventStore } = await kit(
    '@jsonrpc-kit/transport-http',
    'createMemoryEventStore',
  );
  const store = createMemoryEventStore({ maxEvents: bound });
  const message = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}';
  let last = '';
  const round = () => {
    for (let i = 0; i < ROUND; i++) last = store.append('stream', message);
  };
  for (let i = 0; i < (2 * bound) / ROUND; i++) round();
  // Full, and no fuller: the newest event is kept, the one `bound` before it is not.
  const sequence = Number(last.slice(last.lastIndexOf('_') + 1));
  if ((await store.replayAfter(last, () => {})) !== 'stream') throw new Error('newest not kept');
  if ((await store.replayAfter(`stream_${sequence - bound}`, () => {})) !== undefined)
    throw new Error(`more than ${bound} events kept`);
  return round;
}

/** A round of `ROUND` calls from one busy key, with `bound` keys kept. */
async function rateLimitKeys(bound) {
  const { rateLimit } = await kit('@jsonrpc-kit/server/middleware', 'rateLimit');
  const limit = rateLimit({
    capacity: 1e12,
    refillPerSecond: 1e9,
    maxKeys: bound,
    key: (ctx) => ctx.key,
  });
  const next = () => 'answered';
  for (let i = 0; i < bound; i++) limit({ key: `client${i}` }, next);
  const busy = { key: `client${bound - 1}` };
  if (limit(busy, next) !== 'answered') throw new Error('the busy key was refused');
  return () => {
    for (let i = 0; i < ROUND; i++) limit(busy, next);
  };
}

/** A round of `ROUND` refreshes of one call, with `bound` calls pending under the safety net. */
async function progressRefresh(bound) {
  const { createPendingCalls } = await kit('@jsonrpc-kit/core', 'createPendingCalls');
  const pending = createPendingCalls({ fallbackTimeout: 3_600_000 });
  for (let i = 0; i < bound; i++) pending.add(i, 'slow', { fallback: true }).catch(() => {});
  const busy = bound - 1;
  return () => {
    for (let i = 0; i < ROUND; i++) {
      if (!pending.refresh(busy)) throw new Error('the call is not pending');
    }
  };
}

/** A round of `ROUND` progress notifications on a Streamable session with `bound` POSTs waiting. */
async function progressRoute(bound) {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createStreamableHttpHandler } = await kit(
    '@jsonrpc-kit/transport-http',
    'createStreamableHttpHandler',
  );
  const server = createServer({ maxConcurrency: bound + 1 });
  const held = [];
  let release;
  const released = new Promise((resolve) => {
    release = resolve;
  });
  server.method('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
  server.method('hold', async (_params, ctx) => {
    held.push(ctx);
    await released;
    return 'released';
  });
  const handler = createStreamableHttpHandler(server);
  const info = { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' };
  const post = (body, session) =>
    handler(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          host: '127.0.0.1',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session === undefined ? {} : { 'mcp-session-id': session }),
        },
        body,
      }),
      info,
    );
  const init = await post('{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}');
  const session = init.headers.get('mcp-session-id');
  if (session === null) throw new Error('no session started');
  const answers = [];
  for (let i = 0; i < bound; i++) {
    const body = `{"jsonrpc":"2.0","id":${i},"method":"hold","params":{"_meta":{"progressToken":"t${i}"}}}`;
    answers.push(post(body, session));
  }
  await until(() => held.length === bound, `${bound} calls to start`);
  const newest = held[bound - 1];
  const params = { progressToken: `t${bound - 1}`, progress: 0 };
  const round = async () => {
    for (let i = 0; i < ROUND; i++) {
      params.progress++;
      await newest.peer.notify('notifications/progress', params);
    }
  };
  // The first notification makes the newest POST's answer an event stream: drained from then on.
  const first = newest.peer.notify('notifications/progress', params);
  const stream = await answers[bound - 1];
  if (stream.headers.get('content-type') !== 'text/event-stream')
    throw new Error('the progress did not go on the newest POST');
  const reader = stream.body.getReader();
  let read = 0;
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.length;
    }
  })();
  await first;
  await round();
  if (read === 0) throw new Error('nothing arrived on the stream');
  round.close = async () => {
    release();
    await Promise.all(answers);
    await handler.close();
  };
  return round;
}

/** A round of `ROUND` invalid answers taken by a client with `bound` calls waiting. */
async function invalidAnswers(bound) {
  const { createMemoryTransportPair } = await kit('@jsonrpc-kit/core', 'createMemoryTransportPair');
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const [near, far] = createMemoryTransportPair();
  let reported = 0;
  const client = createClient(near, { callTimeout: 3_600_000, onError: () => reported++ });
  let asked = 0;
  await far.start({ onMessage: () => asked++, onClose: () => {} });
  const waiting = [];
  for (let i = 0; i < bound; i++) waiting.push(client.request('hold').catch(() => {}));
  await until(() => asked === bound, `${bound} calls to be sent`);
  const invalid = '{"jsonrpc":"2.0","id":"nobody","result":1,"error":{"code":1,"message":"m"}}';
  const sends = new Array(ROUND);
  const round = async () => {
    for (let i = 0; i < ROUND; i++) sends[i] = far.send(invalid);
    await Promise.all(sends);
  };
  const before = reported;
  await round();
  if (reported - before !== ROUND) throw new Error(`${reported - before} of ${ROUND} reported`);
  round.close = async () => {
    await client.close();
    await Promise.all(waiting);
  };
  return round;
}

const tables = {
  'event-store': eventStore,
  'rate-limit-keys': rateLimitKeys,
  'progress-refresh': progressRefresh,
  'progress-route': progressRoute,
  'invalid-answers': invalidAnswers,
};

const ROW = { makers: tables, bounds: BOUNDS, perRound: ROUND, extraKey: 'kept' };

/** Measures one case; the value is nanoseconds per item. */
export const run = (name, config) => timePerItem(ROW, name, config);
