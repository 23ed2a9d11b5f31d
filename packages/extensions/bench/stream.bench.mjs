// Stream throughput over the in-memory transport: items per second for several windows, against
// the same items fetched one request per item. Run after `npx tsc -b`:
//   node packages/extensions/bench/stream.bench.mjs
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair } from '@jsonrpc-kit/core';
import { streamCall, streams } from '@jsonrpc-kit/extensions/streams';
import { createServer } from '@jsonrpc-kit/server';

const N = 100_000;
const server = createServer();
streams(server);
server.method('count', async function* ({ to }) {
  for (let i = 0; i < to; i++) yield i;
});
server.method('item', ([i]) => i);
const [a, b] = createMemoryTransportPair();
server.connect(b);
const client = createClient(a);

async function streamed(window) {
  const t = performance.now();
  let n = 0;
  for await (const _ of streamCall(client, 'count', { to: N }, { window })) n++;
  if (n !== N) throw new Error('lost items');
  return performance.now() - t;
}

async function perRequest(count) {
  const t = performance.now();
  for (let i = 0; i < count; i++) await client.request('item', [i]);
  return ((performance.now() - t) * N) / count;
}

for (const window of [1, 10, 100, 1000]) await streamed(window); // warm-up
const rows = [];
for (const window of [1, 10, 100, 1000]) {
  const ms = await streamed(window);
  rows.push({
    mode: `stream window ${window}`,
    ms: Math.round(ms),
    itemsPerSec: Math.round((N / ms) * 1000),
  });
}
const ms = await perRequest(20_000);
rows.push({
  mode: 'one request per item',
  ms: Math.round(ms),
  itemsPerSec: Math.round((N / ms) * 1000),
});
console.table(rows);
await client.close();
