/**
 * wrk support: found on PATH, its report parsed. wrk is preferred over autocannon for the HTTP
 * server scenario when it is installed.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The path of `wrk` when it is on PATH: it gives sub-millisecond latencies, autocannon does not. */
export function findWrk() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, 'wrk');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}

const UNITS_MS = { us: 0.001, ms: 1, s: 1000 };

/** Milliseconds from a wrk duration such as `512.00us`, `1.20ms` or `2.00s`. */
function wrkMs(text) {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text);
  return m === null ? undefined : Number(m[1]) * UNITS_MS[m[2]];
}

/** Parses wrk's report (run with --latency). */
export function parseWrk(output) {
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
  if (rate === null) throw new Error(`unexpected wrk output: ${output.slice(0, 200)}`);
  const latency = (pct) => {
    const m = new RegExp(`^\\s+${pct}%\\s+(\\S+)`, 'm').exec(output);
    return m === null ? undefined : wrkMs(m[1]);
  };
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  const failures =
    (non2xx === null ? 0 : Number(non2xx[1])) +
    (socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0));
  return { rate: Number(rate[1]), p50: latency(50), p99: latency(99), failures };
}
