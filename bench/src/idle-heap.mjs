/**
 * Where the memory of idle WebSocket connections goes, by constructor: opens `--connections`
 * idle sockets (from a child process) to one server in this process, `raw` (bare `ws`) or `kit`
 * (the servers of the `ws-idle` row), and compares heap
 * snapshots taken before and after them. Prints the growth per connection of the heap in use and
 * of each heap space's physical size, then the constructors whose objects grew most, as bytes and
 * objects per connection (self sizes: an object's own bytes, not what it holds).
 *
 *   node --expose-gc src/idle-heap.mjs [--impl raw|kit] [--connections 2000] [--top 30]
 *
 * Run it from `bench/` after `pnpm build`. A diagnostic, not a scenario: it writes two snapshot
 * files to the system's temporary folder and removes them.
 */
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { wsConnsServers } from './ws-conns-servers.mjs';

const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'kit' },
    connections: { type: 'string', default: '2000' },
    top: { type: 'string', default: '30' },
    client: { type: 'string' },
  },
});
const count = Number(values.connections);

if (values.client !== undefined) await openClients(Number(values.client));
else await measure(values.impl, Number(values.top));

/** The child: opens `count` sockets, 100 at a time, reports, and holds them until told. */
async function openClients(port) {
  const { WebSocket } = await import('ws');
  const sockets = [];
  const open = () =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  for (let i = 0; i < count; i += 100) {
    sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, open))));
  }
  process.send('open');
  process.once('message', () => {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  });
}

/** Starts a child that opens `n` sockets; resolves once they are open. */
async function clients(port, n) {
  const child = fork(fileURLToPath(import.meta.url), [
    '--connections',
    String(n),
    '--client',
    String(port),
  ]);
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`client child exited with ${code}`)));
  });
  return child;
}

function collect() {
  for (let i = 0; i < 2; i++) globalThis.gc();
}

function snapshot(name) {
  collect();
  return v8.writeHeapSnapshot(join(tmpdir(), `idle-heap-${process.pid}-${name}.heapsnapshot`));
}

/** Self size and count per constructor (`type:name`) of a snapshot file. */
function byConstructor(file) {
  const { snapshot: meta, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = meta.meta.node_fields;
  const types = meta.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = types[nodes[i + type]];
    const key =
      kind === 'string' || kind === 'number' ? kind : `${kind}:${strings[nodes[i + name]]}`;
    const entry = out.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += nodes[i + size];
    out.set(key, entry);
  }
  return out;
}

async function measure(impl, top) {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  const http = createHttpServer();
  await wsConnsServers[impl](http);
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address();
  // One connection first, so that code and module state made on first use are not counted.
  const warm = await clients(port, 1);
  collect();
  const memoryBefore = process.memoryUsage();
  const spacesBefore = v8.getHeapSpaceStatistics();
  const before = snapshot('before');
  const child = await clients(port, count);
  await new Promise((resolve) => setTimeout(resolve, 500));
  collect();
  const memoryAfter = process.memoryUsage();
  const spacesAfter = v8.getHeapSpaceStatistics();
  const after = snapshot('after');
  const kib = (bytes) => (bytes / count / 1024).toFixed(2);
  // Not RSS: writing the first snapshot leaves native memory behind (the `ws-idle` row measures RSS).
  console.log(
    `${impl}, ${count} idle connections, per connection: heap used ` +
      `${kib(memoryAfter.heapUsed - memoryBefore.heapUsed)} KiB`,
  );
  const spaces = spacesAfter
    .map((space, i) => {
      const grown = space.physical_space_size - spacesBefore[i].physical_space_size;
      return grown === 0 ? undefined : `${space.space_name} ${kib(grown)}`;
    })
    .filter((text) => text !== undefined);
  console.log(`physical KiB per connection by heap space: ${spaces.join(', ')}`);
  const was = byConstructor(before);
  const rows = [];
  let total = 0;
  for (const [key, now] of byConstructor(after)) {
    const then = was.get(key) ?? { count: 0, bytes: 0 };
    const bytes = (now.bytes - then.bytes) / count;
    total += bytes;
    if (bytes > 0) rows.push({ key, bytes, objects: (now.count - then.count) / count });
  }
  rows.sort((a, b) => b.bytes - a.bytes);
  console.log(`self sizes grew ${total.toFixed(0)} B per connection; the largest:`);
  for (const row of rows.slice(0, top)) {
    console.log(
      `${row.bytes.toFixed(1).padStart(8)} B ${row.objects.toFixed(2).padStart(6)} objects  ${row.key}`,
    );
  }
  rmSync(before);
  rmSync(after);
  child.send('done');
  warm.send('done');
  http.closeAllConnections();
  http.close();
}
