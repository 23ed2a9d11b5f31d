/**
 * Scenario 8c: cost per item of the kit's waiting queues when their bound is raised far past the
 * default, from 1,000 to 100,000 waiting, in one process. Each queue is full before the timing
 * starts and stays full: every item taken from the front is replaced at the back. A flat line
 * means taking an item costs the same however many wait; one that grows means each take moves
 * the others (as `Array.prototype.shift` does on an array of more than about 16,000 items).
 *
 * Queues:
 * - `subscription-buffer`: items of a client's subscription (`createClient` over core's memory
 *   transport, `maxBuffered` as the bound) that a slow `for await` loop has not taken yet; each
 *   item is taken with the iterator's `next()`, and a new one arrives from the raw peer.
 * - `call-queue`: calls waiting for a slot on a server connection (`createServer` with
 *   `maxConcurrency: 1` and `maxQueue` as the bound, `server.connect()` over the memory
 *   transport); the running call ends, the oldest waiting one starts, and a new one arrives.
 */
import { kit, until } from '../common.mjs';
import { timePerItem } from './cost.mjs';

/** The bounds measured: column label → items waiting. */
const BOUNDS = { '10k': 10_000, '30k': 30_000, '100k': 100_000 };
const QUEUES = ['subscription-buffer', 'call-queue'];
/** Every measured case: `<queue>/<bound>`. */
export const LONG_QUEUE_CASES = QUEUES.flatMap((queue) =>
  Object.keys(BOUNDS).map((bound) => `${queue}/${bound}`),
);
/** Items per timed round. */
const ROUND = 100;

/** A round of `ROUND` items taken from, and added to, a subscription holding `bound`. */
async function subscriptionBuffer(bound) {
  const { createMemoryTransportPair } = await kit('@jsonrpc-kit/core', 'createMemoryTransportPair');
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const [near, far] = createMemoryTransportPair();
  await far.start({
    onMessage: (text) => {
      const message = JSON.parse(text);
      if (message.id !== undefined) {
        void far.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: 'sub' }));
      }
    },
    onClose: () => {},
  });
  const client = createClient(near);
  const subscription = client.subscribe('ticks', undefined, { maxBuffered: bound });
  await subscription.ready;
  const items = subscription[Symbol.asyncIterator]();
  let sent = 0;
  const send = (count) => {
    const sends = [];
    for (let i = 0; i < count; i++) {
      sends.push(
        far.send(
          `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"sub","item":${sent++}}}`,
        ),
      );
    }
    return Promise.all(sends);
  };
  await send(bound);
  let taken = 0;
  const round = async () => {
    for (let i = 0; i < ROUND; i++) {
      const { value } = await items.next();
      if (value !== taken++) throw new Error(`item ${value} came where ${taken - 1} was due`);
    }
    await send(ROUND);
  };
  round.close = () => client.close();
  return round;
}

/** A round of `ROUND` calls started from, and added to, a connection's queue holding `bound`. */
async function callQueue(bound) {
  const { createMemoryTransportPair } = await kit('@jsonrpc-kit/core', 'createMemoryTransportPair');
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const server = createServer({ maxConcurrency: 1, maxQueue: bound });
  let running;
  server.method('hold', () => new Promise((resolve) => (running = resolve)));
  const [near, far] = createMemoryTransportPair();
  server.connect(near);
  let answered = 0;
  await far.start({ onMessage: () => answered++, onClose: () => {} });
  let sent = 0;
  const send = (count) => {
    const sends = [];
    for (let i = 0; i < count; i++) {
      sends.push(far.send(`{"jsonrpc":"2.0","id":${sent++},"method":"hold"}`));
    }
    return Promise.all(sends);
  };
  // One running, `bound` waiting.
  await send(bound + 1);
  await until(() => running !== undefined, 'the first call');
  const round = async () => {
    for (let i = 0; i < ROUND; i++) {
      const end = running;
      running = undefined;
      end('done');
      await until(() => running !== undefined, 'the next call');
    }
    await send(ROUND);
    if (answered !== sent - bound - 1) throw new Error(`${answered} answered of ${sent} sent`);
  };
  round.close = async () => {
    await near.close();
    await far.close();
  };
  return round;
}

const queues = {
  'subscription-buffer': subscriptionBuffer,
  'call-queue': callQueue,
};

const ROW = { makers: queues, bounds: BOUNDS, perRound: ROUND, extraKey: 'waiting' };

/** Measures one case; the value is nanoseconds per item. */
export const run = (name, config) => timePerItem(ROW, name, config);
