import { createMemoryTransportPair } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createClient } from '@jsonrpc-kit/client';
const inflight = Number(process.argv[2] ?? 64);
const [a, b] = createMemoryTransportPair();
const server = createServer({});
server.method('add', (p) => p.a + p.b);
server.connect(b);
const client = createClient(a, {});
const N = 200000;
let done = 0;
const t0 = performance.now();
async function lane() { while (done < N) { done++; await client.request('add', { a: 1, b: 2 }); } }
await Promise.all(Array.from({ length: inflight }, lane));
const ms = performance.now() - t0;
console.log(inflight, 'calls/s', Math.round(N / ms * 1000));
await client.close();
