/**
 * CPU time per call of the kit's in-process rows, for comparing builds on a busy machine.
 *
 *   node bench/src/cpu.mjs <checkout> [<checkout> …] [--rounds 3]
 *
 * Each checkout is a built copy of the repository (`pnpm build`); a fresh child process per
 * checkout and row, the checkouts alternating round by round. A child runs a row several times
 * and keeps the least CPU time (`process.cpuUsage`) per call: other processes on the machine
 * slow a run's wall time far more than its CPU time, and the least is the least disturbed.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REQUEST = '{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}}';
const BATCH = `[${Array.from({ length: 100 }, (_, i) => REQUEST.replace('"id":1', `"id":${i + 1}`)).join(',')}]`;
const add = (params) => params.a + params.b;

/** Rows: what one call is, and how many make a run. */
const ROWS = {
  'in-process': { calls: 1_000_000, make: handleText(REQUEST) },
  'in-process-batch': { calls: 10_000, make: handleText(BATCH) },
  'memory-seq': { calls: 200_000, make: memoryCalls(1) },
  'memory-64': { calls: 200_000, make: memoryCalls(64) },
};

function kit(root, pkg) {
  return import(pathToFileURL(resolve(root, 'packages', pkg, 'dist/index.js')).href);
}

function handleText(text) {
  return async (root) => {
    const { createServer } = await kit(root, 'server');
    const server = createServer({});
    server.method('add', add);
    return async (calls) => {
      for (let i = 0; i < calls; i++) {
        const answer = server.handle(text);
        if (typeof answer !== 'string') await answer;
      }
    };
  };
}

function memoryCalls(inFlight) {
  return async (root) => {
    const [{ createServer }, { createClient }, { createMemoryTransportPair }] = await Promise.all([
      kit(root, 'server'),
      kit(root, 'client'),
      kit(root, 'core'),
    ]);
    const [clientSide, serverSide] = createMemoryTransportPair();
    const server = createServer({});
    server.method('add', add);
    await server.connect(serverSide);
    const client = createClient(clientSide, {});
    return async (calls) => {
      let left = calls;
      const lane = async () => {
        while (left-- > 0) await client.request('add', { a: 1, b: 2 });
      };
      await Promise.all(Array.from({ length: inFlight }, lane));
    };
  };
}

async function child(root, row) {
  const { calls, make } = ROWS[row];
  const run = await make(root);
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 6; i++) {
    const start = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(start);
    least = Math.min(least, ((used.user + used.system) * 1000) / calls);
  }
  process.stdout.write(`${least}\n`);
  process.exit(0);
}

function main(args) {
  const at = args.indexOf('--rounds');
  const rounds = at >= 0 ? Number(args[at + 1]) : 3;
  const roots = args.filter((_, i) => i !== at && i !== at + 1);
  if (roots.length === 0)
    throw new Error('usage: node bench/src/cpu.mjs <checkout> [<checkout> …] [--rounds 3]');
  const self = fileURLToPath(import.meta.url);
  const results = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const row of Object.keys(ROWS)) {
      for (const root of roots) {
        const out = spawnSync(process.execPath, [self, '--child', root, row], {
          encoding: 'utf8',
          timeout: 120_000,
        });
        if (out.status !== 0) throw new Error(`${row} in ${root} failed: ${out.stderr}`);
        const key = `${row}\t${root}`;
        results.set(key, [...(results.get(key) ?? []), Number(out.stdout)]);
      }
    }
  }
  console.log('row\tcheckout\tns CPU per call (least of each round)');
  for (const [key, values] of results) {
    console.log(`${key}\t${values.map((v) => v.toFixed(0)).join(' ')}`);
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(resolve(args[1]), args[2]);
else main(args);
