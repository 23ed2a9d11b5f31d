/**
 * Server CPU time per request of the HTTP server row's implementations, measured directly: each
 * server child (`children/http-server.mjs`) pinned to CPU 1 where `taskset` exists, this process
 * sending small requests over 16 keep-alive connections (`node:http`), and the child's CPU time read
 * from `/proc/<pid>/stat` around each round. Prints the least CPU time per request of four rounds of
 * 20,000 requests, for each run; the implementations alternate run by run. Linux only (`/proc`).
 *
 *   node src/http-cpu.mjs [--impl raw,kit,json-rpc-2.0] [--runs 3]
 *
 * Run it from `bench/` after `pnpm build`. A diagnostic beside the `http-server` row, whose
 * requests per second also depend on the load generator sharing the machine.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SERVER = fileURLToPath(new URL('./children/http-server.mjs', import.meta.url));
const BODY = '{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}}';
const CONNECTIONS = 16;
const ROUND = 20_000;
const ROUNDS = 4;
/** Clock ticks per second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`, 100 on Linux). */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
const PINNED = spawnSync('taskset', ['-c', '1', 'true']).status === 0;

/** User plus system CPU time of a process so far, in µs. */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS;
}

/** Starts a server child and resolves its port. */
async function start(impl) {
  const argv = ['node', SERVER, impl];
  const child = PINNED
    ? spawn('taskset', ['-c', '1', ...argv], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    child.stdout.once('data', (data) => resolve(String(data).split('\n')[0]));
    child.once('exit', (code) => reject(new Error(`${impl} exited (${code}) before listening`)));
  });
  const ready = JSON.parse(line);
  if (ready.port === undefined) throw new Error(`${impl}: ${line}`);
  // `taskset` execs node: its pid is the server's.
  return { child, port: ready.port };
}

/** Least CPU time per request of one server process over `ROUNDS` rounds, in µs. */
async function measure(impl) {
  const { child, port } = await start(impl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const one = () =>
    new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': BODY.length },
        },
        (response) => {
          response.resume();
          response.on('end', resolve);
        },
      );
      request.on('error', reject);
      request.end(BODY);
    });
  const send = async (count) => {
    let left = count;
    const lane = async () => {
      while (left-- > 0) await one();
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, lane));
  };
  try {
    await send(ROUND / 4); // warm-up
    let least = Number.POSITIVE_INFINITY;
    for (let round = 0; round < ROUNDS; round++) {
      const before = cpuOf(child.pid);
      await send(ROUND);
      least = Math.min(least, (cpuOf(child.pid) - before) / ROUND);
    }
    return least;
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
  }
}

const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'raw,kit,json-rpc-2.0' },
    runs: { type: 'string', default: '3' },
  },
});
const impls = values.impl.split(',');
const results = new Map(impls.map((impl) => [impl, []]));
for (let run = 0; run < Number(values.runs); run++) {
  for (const impl of impls) results.get(impl).push(await measure(impl));
}
console.log(`impl\tµs server CPU per request (least of ${ROUNDS} rounds of ${ROUND}, per run)`);
for (const [impl, perRun] of results) {
  console.log(`${impl}\t${perRun.map((v) => v.toFixed(1)).join(' ')}`);
}
