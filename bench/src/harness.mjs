/**
 * The harness: runs every measurement in a fresh, pinned process, rotates the order of the
 * implementations between repetitions, takes medians and renders markdown tables.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, nodeCommand } from './common.mjs';
import { COST_FLAT_LIMIT, GROWTH_LIMIT_MB, HEAP_LIMIT, SCENARIOS } from './scenarios.mjs';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));

/** Repetitions per implementation (the median is reported). */
export const DEFAULT_REPS = 5;

/** Hard limit for one measurement; the worker's whole process group is killed after it. */
export const TIMEOUT_MS = { quick: 30_000, full: 120_000 };

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `list` rotated left by `n`. */
export function rotate(list, n) {
  const k = n % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

function scaleConfig(config, scale) {
  if (scale === 1) return config;
  const out = {};
  for (const [key, value] of Object.entries(config))
    out[key] = Math.max(1, Math.round(value * scale));
  return out;
}

/**
 * Runs one measurement in a fresh process and resolves its JSON line:
 * `{ value, extra? }`, `{ skip }` or `{ error }`.
 */
export function measureOnce(scenario, impl, config, timeoutMs) {
  const [cmd, args] = nodeCommand(
    WORKER,
    [scenario.id, impl, JSON.stringify(config)],
    scenario.cpu,
    scenario.nodeArgs ?? [],
  );
  return new Promise((resolve) => {
    // detached: the worker leads its own process group, so a stuck worker and every child it
    // started can be killed together.
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // Whatever the worker left behind (a server child that did not stop) goes too.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      if (timedOut) return resolve({ error: `timed out after ${timeoutMs} ms` });
      const lines = stdout.trim().split('\n');
      try {
        const result = JSON.parse(lines[lines.length - 1]);
        if (typeof result === 'object' && result !== null) return resolve(result);
      } catch {}
      const why = stderr.trim().split('\n').slice(-1)[0] || `exit code ${code}`;
      resolve({ error: why });
    });
  });
}

/**
 * Runs the suite.
 *
 * @param {{ quick?: boolean, only?: string[], impls?: string[], reps?: number, scale?: number,
 *   log?: (line: string) => void }} options
 * @returns {Promise<Array<{ scenario: object, rows: object[] }>>}
 */
export async function runSuite(options = {}) {
  const mode = options.quick ? 'quick' : 'full';
  const scale = options.scale ?? 1;
  const log = options.log ?? (() => {});
  const scenarios = options.only ? SCENARIOS.filter((s) => options.only.includes(s.id)) : SCENARIOS;
  if (options.only) {
    for (const id of options.only) {
      if (!SCENARIOS.some((s) => s.id === id)) throw new Error(`unknown scenario ${id}`);
    }
  }
  const results = [];
  // The suite loads both CPUs itself, so only the load before it starts says whether something
  // else was competing.
  const loadBefore = loadavg()[0];
  for (const scenario of scenarios) {
    const impls = options.impls
      ? scenario.impls.filter((i) => options.impls.includes(i.name))
      : scenario.impls;
    if (impls.length === 0) continue;
    const reps = options.reps ?? scenario.reps?.[mode] ?? DEFAULT_REPS;
    const config = scaleConfig(scenario.config[mode], scale);
    const runs = new Map(impls.map((i) => [i.name, []]));
    const done = new Map();
    const lost = new Map();
    const began = Date.now();
    log(`${scenario.title}`);
    for (let rep = 0; rep < reps; rep++) {
      for (const impl of rotate(impls, rep)) {
        if (done.has(impl.name)) continue;
        const timeoutMs = scenario.timeoutMs?.[mode] ?? TIMEOUT_MS[mode];
        const result = await measureOnce(scenario, impl.name, config, timeoutMs);
        if (result.skip !== undefined || result.error !== undefined) {
          const why = result.skip ?? `error: ${result.error}`;
          log(`  ${impl.name}: ${why}`);
          if (runs.get(impl.name).length === 0) {
            // Skips and failures repeat: do not spend the other repetitions on them.
            done.set(impl.name, result);
          } else {
            (lost.get(impl.name) ?? lost.set(impl.name, []).get(impl.name)).push(why);
          }
          continue;
        }
        runs.get(impl.name).push(result);
        log(`  rep ${rep + 1}/${reps} ${impl.name}: ${Math.round(result.value * 100) / 100}`);
      }
    }
    const rows = impls.map((impl) => {
      const list = runs.get(impl.name);
      const failed = done.get(impl.name);
      if (failed !== undefined) {
        return {
          impl: impl.name,
          kind: impl.kind,
          group: impl.group,
          note: failed.skip ?? `error: ${failed.error}`,
        };
      }
      const row = {
        impl: impl.name,
        kind: impl.kind,
        group: impl.group,
        median: median(list.map((r) => r.value)),
      };
      row.values = list.map((r) => r.value);
      const extraKeys = Object.keys(list[0]?.extra ?? {});
      row.extra = {};
      for (const key of extraKeys) row.extra[key] = median(list.map((r) => r.extra[key]));
      const lostRuns = lost.get(impl.name);
      if (lostRuns !== undefined) row.lost = `${lostRuns.length} run(s) lost: ${lostRuns[0]}`;
      return row;
    });
    log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
    results.push({ scenario, config, reps, rows, loadBefore });
  }
  return results;
}

const fmtNumber = (n) =>
  n >= 100
    ? Math.round(n).toLocaleString('en-US')
    : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
/** Extra columns hold small numbers (ms, KiB) too: keep three decimals below 10. */
const fmtCell = (n) =>
  n >= 10 ? fmtNumber(n) : n.toLocaleString('en-US', { maximumFractionDigits: 3 });
const fmtRatio = (r) => (r === undefined ? '—' : `${r.toFixed(2)}x`);

function implLabel(row) {
  if (row.kind === 'raw') return `${row.impl} (baseline)`;
  if (row.kind === 'peer') return `${row.impl} (peer)`;
  return `**${row.impl}**`;
}

function heapTable({ scenario, rows }) {
  const lines = [
    `### ${scenario.title}`,
    '',
    '| impl | calls | start heap MB | end heap MB | end/start | result |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    if (row.median === undefined) {
      lines.push(`| ${implLabel(row)} | — | — | — | — | ${row.note} |`);
      continue;
    }
    const e = row.extra;
    const pass = row.median <= HEAP_LIMIT ? 'pass' : 'FAIL';
    const failNote = `; ${fmtNumber(e.failures)} of ${fmtNumber(e.expectedFailures)} timed-out/aborted calls rejected`;
    lines.push(
      `| ${implLabel(row)} | ${fmtNumber(e.calls)} | ${e.startMB.toFixed(2)} | ${e.endMB.toFixed(2)} | ` +
        `${row.median.toFixed(3)} | ${pass} (limit ${HEAP_LIMIT.toFixed(2)}x${failNote}) |`,
    );
  }
  return lines.join('\n');
}

function growthTable({ scenario, rows }) {
  const lines = [
    `### ${scenario.title}`,
    '',
    '| transport | requests | server RSS before MB | peak MB | growth MB | result |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    if (row.median === undefined) {
      lines.push(`| ${row.impl} | — | — | — | — | ${row.note} |`);
      continue;
    }
    const e = row.extra;
    const verdict =
      row.kind === 'raw'
        ? 'without backpressure, for comparison'
        : `${row.median <= GROWTH_LIMIT_MB ? 'pass' : 'FAIL'} (limit ${GROWTH_LIMIT_MB} MB)`;
    lines.push(
      `| ${row.impl} | ${fmtNumber(e.requests)} | ${e.beforeMB.toFixed(1)} | ${e.peakMB.toFixed(1)} | ` +
        `${row.median.toFixed(1)} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The cost table: one line per input shape, its unit (ns/byte, ns/item) at each size, and whether the cost stays
 * flat (the largest size within COST_FLAT_LIMIT of the smallest).
 */
function costTable({ scenario, rows }) {
  const shapes = new Map();
  for (const row of rows) {
    const [shape, size] = row.impl.split('/');
    if (!shapes.has(shape)) shapes.set(shape, []);
    shapes.get(shape).push({ size, row });
  }
  const sizes = [...new Set(rows.map((r) => r.impl.split('/')[1]))];
  const lines = [
    `### ${scenario.title}`,
    '',
    `| input | ${sizes.map((s) => `${s} ${scenario.unit}`).join(' | ')} | largest/smallest | result |`,
    `| --- | ${sizes.map(() => '---:').join(' | ')} | ---: | --- |`,
  ];
  for (const [shape, cells] of shapes) {
    const values = sizes.map((s) => cells.find((c) => c.size === s)?.row);
    const first = values[0]?.median;
    const last = values[values.length - 1]?.median;
    const ratio = first !== undefined && last !== undefined ? last / first : undefined;
    const result =
      ratio === undefined
        ? (values.find((v) => v?.median === undefined)?.note ?? '—')
        : ratio <= COST_FLAT_LIMIT
          ? `flat (limit ${COST_FLAT_LIMIT.toFixed(2)}x)`
          : 'GROWS';
    lines.push(
      `| ${shape} | ${values.map((v) => (v?.median === undefined ? '—' : v.median.toFixed(2))).join(' | ')} | ` +
        `${ratio === undefined ? '—' : `${ratio.toFixed(2)}x`} | ${result} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The note of a second target against another baseline row (4a–5c: the write-coalesced raw), with
 * the ratio to three places, since the target sits within a few percent; '' for rows without one.
 */
function floorNote(floor, row, rows) {
  if (floor === undefined) return '';
  const base = rows.find((r) => r.impl === floor.name && r.median !== undefined);
  if (base === undefined) return `≥${floor.ratio.toFixed(2)}x ${floor.name}: not run; `;
  const ratio = row.median / base.median;
  return `≥${floor.ratio.toFixed(2)}x ${floor.name}: ${ratio >= floor.ratio ? 'met' : 'missed'} (${ratio.toFixed(3)}x); `;
}

/** One scenario's result as a markdown table. */
export function formatTable(result) {
  const { scenario, rows } = result;
  if (scenario.kind === 'heap') return heapTable(result);
  if (scenario.kind === 'growth') return growthTable(result);
  if (scenario.kind === 'cost') return costTable(result);
  // Lower is better for costs (CPU per call, memory, latency, time): the best peer is the
  // smallest, and the target is a ceiling instead of a floor.
  const lower = scenario.lower === true;
  // Rows of a group (one message size, say) compare with the baseline of the same group.
  const baselineOf = (row) =>
    rows.find((r) => r.kind === 'raw' && r.median !== undefined && r.group === row.group);
  const peers = rows.filter((r) => r.kind === 'peer' && r.median !== undefined);
  const bestPeer = peers.length
    ? (lower ? Math.min : Math.max)(...peers.map((r) => r.median))
    : undefined;
  const columns = [
    ...(scenario.latency
      ? [
          ['p50', 'p50 ms'],
          ['p99', 'p99 ms'],
        ]
      : []),
    ...(scenario.columns ?? []),
  ];
  const head = ['impl', `median ${scenario.unit}`, 'vs raw', 'vs best peer'];
  for (const [, label] of columns) head.push(label);
  head.push('notes');
  const lines = [
    `### ${scenario.title}`,
    '',
    `| ${head.join(' | ')} |`,
    `| --- | ${head
      .slice(1, -1)
      .map(() => '---:')
      .join(' | ')} | --- |`,
  ];
  for (const row of rows) {
    if (row.median === undefined) {
      const cells = [implLabel(row), '—', '—', '—'];
      for (const _ of columns) cells.push('—');
      cells.push(row.note);
      lines.push(`| ${cells.join(' | ')} |`);
      continue;
    }
    const baseline = baselineOf(row);
    const vsRaw = baseline ? row.median / baseline.median : undefined;
    const vsPeer = bestPeer !== undefined ? row.median / bestPeer : undefined;
    const cells = [implLabel(row), fmtNumber(row.median), fmtRatio(vsRaw), fmtRatio(vsPeer)];
    for (const [key] of columns) {
      const value = row.extra?.[key];
      cells.push(value === undefined ? '—' : fmtCell(value));
    }
    const notes = [];
    if (row.kind === 'kit' && scenario.target) {
      const okRaw =
        vsRaw !== undefined &&
        (lower ? vsRaw <= scenario.target.raw : vsRaw >= scenario.target.raw);
      const okPeers = vsPeer === undefined || (lower ? vsPeer <= 1 : vsPeer >= 1);
      notes.push(
        `target ${lower ? '≤' : '≥'}${scenario.target.raw.toFixed(2)}x raw: ${okRaw ? 'met' : 'missed'}; ` +
          floorNote(scenario.target.floor, row, rows) +
          `ahead of peers: ${okPeers ? 'yes' : 'no'}`,
      );
    }
    if (row.extra?.failures) notes.push(`${row.extra.failures} failed requests`);
    if (row.extra?.clientCpuUs !== undefined && row.extra.serverCpuUs !== undefined) {
      notes.push(
        `CPU µs/call: client ${row.extra.clientCpuUs.toFixed(2)}, server ${row.extra.serverCpuUs.toFixed(2)}`,
      );
    }
    if (row.extra?.cpuUsPerItem !== undefined) {
      notes.push(`server CPU ${row.extra.cpuUsPerItem.toFixed(2)} µs/item`);
    }
    if (row.lost !== undefined) notes.push(row.lost);
    if (row.values.length > 1) {
      const spread = (Math.max(...row.values) - Math.min(...row.values)) / row.median;
      notes.push(`n=${row.values.length}, spread ±${((spread / 2) * 100).toFixed(0)}%`);
    }
    cells.push(notes.join('; '));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The whole report: a header describing the run, then one table per scenario. */
export function formatReport(results, { quick }) {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const header = [
    '# jsonrpc-kit benchmark results',
    '',
    `Mode: ${quick ? 'quick' : 'full'}. Node ${process.version}, ${cpus().length} × ${cpu}. ` +
      `CPU pinning: ${canPin() ? 'yes (taskset)' : 'no (taskset or a second CPU missing)'}. ` +
      `Each cell is the median of fresh-process runs; implementation order rotates between ` +
      `repetitions. "vs raw" divides by the first baseline row, "vs best peer" by the fastest peer.`,
  ];
  const load = results[0]?.loadBefore;
  if (load !== undefined && load > cpus().length * 0.5) {
    header.push(
      '',
      `**Warning:** the machine was busy before the run (1-minute load average ` +
        `${load.toFixed(2)} on ${cpus().length} CPUs); treat these numbers as rough.`,
    );
  }
  return [header.join('\n'), ...results.map(formatTable)].join('\n\n') + '\n';
}

/**
 * The rows of a run that measured nothing (skipped, failed or not built), as
 * `"<scenario id> <impl>: <why>"`.
 */
function unmeasuredRows(results) {
  return results.flatMap(({ scenario, rows }) =>
    rows
      .filter((row) => row.median === undefined)
      .map((row) => `${scenario.id} ${row.impl}: ${row.note}`),
  );
}

/**
 * Writes the report and a timestamped JSON file of the raw runs to `dir`. The report goes to
 * `latest.md` (the committed results) only when every row measured; a run with a row that did
 * not (say, `redis-server` missing) would replace measured rows with `n/a`, so its report goes
 * beside the JSON as `<timestamp>.md` and `latest.md` stays as it was.
 *
 * @returns the file name of the report, and the rows that measured nothing
 */
export function writeResults(results, report, dir = RESULTS) {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const unmeasured = unmeasuredRows(results);
  const file = unmeasured.length === 0 ? 'latest.md' : `${stamp}.md`;
  writeFileSync(join(dir, file), report);
  const json = results.map(({ scenario, config, reps, rows }) => ({
    scenario: scenario.id,
    unit: scenario.unit,
    config,
    reps,
    rows,
  }));
  writeFileSync(join(dir, `${stamp}.json`), JSON.stringify(json, null, 2));
  return { file, unmeasured };
}
