/**
 * Shared pieces of the benchmark: the workload, kit loading with "not built yet" detection,
 * process spawning with CPU pinning, and bounded load loops.
 */
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The method every implementation serves. */
export const METHOD = 'add';
/** The params every call sends. */
export const PARAMS = Object.freeze({ a: 1, b: 2 });
/** The handler every implementation runs. */
export const add = (params) => params.a + params.b;

/** The method of the mixed load's slow calls, and how long each takes. */
export const SLOW_METHOD = 'slow';
export const SLOW_MS = 20;
/** The slow handler: answers 0 after `SLOW_MS`. */
export const slow = () => new Promise((resolve) => setTimeout(() => resolve(0), SLOW_MS));

/**
 * The method every server child of the duplex rows (WebSocket, stdio) also serves: its own CPU
 * time so far (user + system, µs), read before and after the timed calls to split a row's cost
 * between its two processes.
 */
export const CPU_METHOD = 'cpu';
/** This process's CPU time so far (user + system), µs: the handler of {@link CPU_METHOD}. */
export const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Runs two full GCs in this process, as one that has run a while has had: what lives then (the
 * tables of calls in flight among it) is in the old generation. Needs no `--expose-gc`.
 */
export function fullGc() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  gc();
  gc();
}

/**
 * The method every server child of the duplex rows serves beside {@link CPU_METHOD}: a
 * {@link fullGc} there (answers 0). The rows "after a full GC" call it after the warm-up.
 */
export const GC_METHOD = 'gc';
/** The handler of {@link GC_METHOD}. */
export const gcNow = () => {
  fullGc();
  return 0;
};

/**
 * After a warm-up: a full GC in this process and in the server child, through `call`. What the
 * rows "after a full GC" add to their fresh-process twins.
 */
export async function ageBothSides(call) {
  fullGc();
  await call(GC_METHOD);
}

/**
 * {@link lanes}, with the CPU time each side spent on the timed calls: this process's (the
 * client's) and the server's, read through `call(CPU_METHOD)`. Resolves `{ value, extra }` with
 * calls/s, and `clientCpuUs` and `serverCpuUs` per call. With 64 calls in flight between two
 * processes, each write carries a whole turn's calls and each side waits while the other works,
 * so calls/s ≈ 1 / (client + server CPU per call): these two say which side a gap is in.
 */
export async function lanesWithCpu(call, lanesCount, total) {
  const server0 = await call(CPU_METHOD);
  const client0 = cpuNow();
  const value = await lanes(call, lanesCount, total);
  const client1 = cpuNow();
  const server1 = await call(CPU_METHOD);
  return {
    value,
    extra: { clientCpuUs: (client1 - client0) / total, serverCpuUs: (server1 - server0) / total },
  };
}

/** One request, as text. */
export const REQUEST_TEXT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: METHOD,
  params: PARAMS,
});
/** An MCP `initialize` request (id 0), as text: what starts a Streamable HTTP session. */
export const INITIALIZE_TEXT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  },
});
/** A batch of 100 requests, as text. */
export const BATCH_TEXT = JSON.stringify(
  Array.from({ length: 100 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: METHOD,
    params: PARAMS,
  })),
);

/** Thrown when a kit package or one of its exports does not exist yet. */
export class NotBuilt extends Error {
  constructor(what) {
    super(`not built yet: ${what}`);
    this.name = 'NotBuilt';
  }
}

/**
 * Imports `names` from a kit package; throws NotBuilt when the import fails or an export is
 * missing.
 */
export async function kit(pkg, ...names) {
  let mod;
  try {
    mod = await import(pkg);
  } catch (error) {
    throw new NotBuilt(`${pkg} (${error?.code ?? error?.message})`);
  }
  const out = {};
  for (const name of names) {
    if (typeof mod[name] !== 'function') throw new NotBuilt(`${pkg}#${name}`);
    out[name] = mod[name];
  }
  return out;
}

let tasksetChecked;
/** Whether `taskset` exists and the machine has at least two CPUs to pin to. */
export function canPin() {
  if (tasksetChecked === undefined) {
    try {
      execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
      tasksetChecked = availableParallelism() >= 2;
    } catch {
      tasksetChecked = false;
    }
  }
  return tasksetChecked;
}

/** Command and args that run `node file ...args`, pinned to `cpu` when pinning is possible. */
export function nodeCommand(file, args, cpu, nodeArgs = []) {
  if (cpu !== undefined && canPin()) {
    return ['taskset', ['-c', String(cpu), process.execPath, ...nodeArgs, file, ...args]];
  }
  return [process.execPath, [...nodeArgs, file, ...args]];
}

/**
 * Starts a server child (`node file ...args`, pinned to `cpu`) that prints one JSON line
 * `{ "port": n }` once it listens (`nodeArgs` go before the file, e.g. `--expose-gc`).
 * Resolves `{ port, child, stop }`.
 */
export function startServerChild(file, args, { cpu, timeoutMs = 10_000, nodeArgs = [] } = {}) {
  const [cmd, argv] = nodeCommand(file, args, cpu, nodeArgs);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      timer.unref();
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server child did not report a port within ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (chunk) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl === -1) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.resume();
      let line;
      try {
        line = JSON.parse(buffer.slice(0, nl));
      } catch {
        reject(new Error(`server child printed ${buffer.slice(0, nl)}`));
        return;
      }
      if (line.skip) {
        const error = new NotBuilt(line.skip);
        reject(error);
      } else if (line.error) reject(new Error(line.error));
      else resolve({ port: line.port, child, stop });
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server child exited with ${code}`));
    });
  });
}

/** Server-child side: report the port (or a skip/error) on one stdout line. */
export function reportReady(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

/** Server-child side: run `main`, turning NotBuilt into a skip line and other errors into an error line. */
export async function serverMain(main) {
  try {
    await main();
  } catch (error) {
    if (error instanceof NotBuilt)
      reportReady({ skip: 'n/a: not built yet', detail: error.message });
    else reportReady({ error: String(error?.stack ?? error) });
    process.exit(0);
  }
  process.on('SIGTERM', () => process.exit(0));
}

/**
 * Runs `call()` on `lanes` concurrent lanes until `total` calls have completed.
 * Resolves the calls per second.
 */
export async function lanes(call, lanesCount, total) {
  let issued = 0;
  const lane = async () => {
    while (issued < total) {
      issued++;
      await call();
    }
  };
  const start = process.hrtime.bigint();
  const all = [];
  for (let i = 0; i < lanesCount; i++) all.push(lane());
  await Promise.all(all);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return total / seconds;
}

/**
 * Runs `call()` on `lanes` concurrent lanes for `ms` milliseconds, looking at the clock every
 * `chunk` calls per lane. Resolves the calls per second.
 */
export async function lanesFor(call, lanesCount, ms, chunk = 8) {
  let done = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  const lane = async () => {
    // Check the clock every `chunk` calls: cheap and still bounded.
    for (;;) {
      for (let i = 0; i < chunk; i++) {
        await call();
        done++;
      }
      if (process.hrtime.bigint() >= deadline) return;
    }
  };
  const all = [];
  for (let i = 0; i < lanesCount; i++) all.push(lane());
  await Promise.all(all);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return done / seconds;
}

/**
 * Waits until `done()` holds, an event-loop turn at a time, for at most `timeoutMs`: then throws,
 * saying what it waited for.
 */
export async function until(done, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Throws unless `value` is the expected result (3): guards against measuring a broken path. */
export function check(value) {
  if (value !== 3) throw new Error(`wrong result: ${JSON.stringify(value)}`);
}

/**
 * Node flags of a server child whose memory per connection is measured: `gc()`, and a young
 * generation of a fixed size (1 MiB semi-spaces, V8's smallest default). By default V8 doubles the
 * young generation whenever much survives a scavenge: while thousands of connections open it grows
 * by up to tens of MiB for the process (a step function of what the connections allocated on the
 * way, not of what they keep) and shrinks back only after seconds of idleness (V8's memory
 * reducer). Fixed, and filled before each reading (`GET /__stats?gc`), it grows by nothing, and
 * the RSS growth is what the connections keep.
 */
export const MEMORY_NODE_ARGS = [
  '--expose-gc',
  '--min-semi-space-size=1',
  '--max-semi-space-size=1',
];

/** Allocates 4 MiB of garbage: every page of a 1 MiB-semi-space young generation is in use. */
function fillYoungGeneration() {
  let garbage;
  for (let i = 0; i < 1 << 15; i++) garbage = new Array(14);
  return garbage;
}

/**
 * Server-child side: answers `GET /__stats` on `httpServer` with the child's memory and its CPU
 * time so far; `GET /__stats?gc` runs a full GC first (when run with `--expose-gc`):
 * `{ rss, heapUsed, external, arrayBuffers, cpuMicros, youngBytes }` (`youngBytes`: the young
 * generation's physical size). Other requests go to `fallback`.
 */
export function serveStats(httpServer, fallback) {
  httpServer.on('request', (req, res) => {
    if (req.url !== '/__stats' && req.url !== '/__stats?gc') {
      if (fallback !== undefined) fallback(req, res);
      return;
    }
    if (req.url === '/__stats?gc') {
      fillYoungGeneration();
      globalThis.gc?.();
      globalThis.gc?.();
    }
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const { user, system } = process.cpuUsage();
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    res.end(
      JSON.stringify({
        rss,
        heapUsed,
        external,
        arrayBuffers,
        cpuMicros: user + system,
        youngBytes: young?.physical_space_size ?? 0,
      }),
    );
  });
}

/**
 * Memory growth per item (connection, session) between two `readStats(port, true)` readings of a
 * child run with {@link MEMORY_NODE_ARGS}: `{ rssKiB, heapKiB }`.
 *
 * @throws Error when the young generation's size changed (the flags were not applied)
 */
export function memoryGrowth(before, after, items) {
  if (after.youngBytes !== before.youngBytes) {
    throw new Error(`young generation ${before.youngBytes} B → ${after.youngBytes} B: not fixed`);
  }
  const kib = (bytes) => bytes / items / 1024;
  return { rssKiB: kib(after.rss - before.rss), heapKiB: kib(after.heapUsed - before.heapUsed) };
}

/** Client side: reads `GET /__stats` of a server child (see `serveStats`), after a GC if `gc`. */
export async function readStats(port, gc = false) {
  const { request } = await import('undici');
  const { body } = await request(`http://127.0.0.1:${port}/__stats${gc ? '?gc' : ''}`);
  return body.json();
}

/** The `p`-th percentile (0–100) of an ascending list, nearest rank. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  // The tolerance keeps float error (99.9 / 100 * 1000 = 999.0000000000001) from adding a rank.
  const rank = Math.ceil((p / 100) * sorted.length - 1e-9) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/**
 * Opens `count` sockets with `open()` (a promise per socket), at most `parallel` opening at
 * once. Resolves the opened sockets in order.
 */
export async function openMany(count, open, parallel = 100) {
  const out = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await open(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
  return out;
}

/**
 * Runs `call(i)` (i counts from 0) on `lanesCount` concurrent lanes until `total` calls have
 * completed, timing each one. Resolves the latencies in ms of the calls for which `timed(i)` is
 * true (all by default), ascending.
 */
export async function timedLanes(call, lanesCount, total, timed = () => true) {
  let issued = 0;
  // Made once, at its full size: a growing array would copy itself (megabytes, in the middle of
  // the load) and keep every new copy alive through a scavenge, and `hrtime.bigint()` allocates.
  const latencies = new Float64Array(total);
  let count = 0;
  const lane = async () => {
    while (issued < total) {
      const i = issued++;
      const start = performance.now();
      await call(i);
      if (timed(i)) latencies[count++] = performance.now() - start;
    }
  };
  await Promise.all(Array.from({ length: lanesCount }, lane));
  return Array.from(latencies.subarray(0, count).sort());
}
