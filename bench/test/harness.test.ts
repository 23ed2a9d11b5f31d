import { describe, expect, it } from 'vitest';
import { kit, NotBuilt } from '../src/common.mjs';
import { formatReport, formatTable, median, rotate, runSuite } from '../src/harness.mjs';

describe('bench harness', () => {
  it('runs one tiny scenario in fresh processes and renders a table with rows', async () => {
    const results = await runSuite({
      quick: true,
      only: ['in-process'],
      impls: ['raw', 'json-rpc-2.0'],
      reps: 1,
      scale: 0.2,
    });
    expect(results).toHaveLength(1);
    const table = formatTable(results[0]);
    const rows = table
      .split('\n')
      .filter((line) => line.startsWith('| ') && !/^\| (impl|---) /.test(line));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^\| raw \(baseline\) \| [\d,]+ \| 1\.00x \|/);
    expect(rows[1]).toMatch(/^\| json-rpc-2\.0 \(peer\) \| [\d,]+ \| \d+\.\d\dx \| 1\.00x \|/);
    expect(formatReport(results, { quick: true })).toContain('### 1a. In-process');
  });

  it('reports an unknown scenario instead of running nothing', async () => {
    await expect(runSuite({ quick: true, only: ['no-such-scenario'] })).rejects.toThrow(
      /unknown scenario/,
    );
  });

  it('treats a missing kit export as not built', async () => {
    await expect(kit('@jsonrpc-kit/core', 'noSuchExport')).rejects.toBeInstanceOf(NotBuilt);
    await expect(kit('@jsonrpc-kit/no-such-package', 'x')).rejects.toBeInstanceOf(NotBuilt);
  });

  it('takes medians and rotates the order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(rotate(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(rotate(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
  });
});

describe('wrk report', () => {
  it('reads the rate, the latency percentiles in ms, and every failure count', async () => {
    const { parseWrk } = await import('../src/wrk.mjs');
    const report = [
      'Running 1s test @ http://127.0.0.1:1/',
      '  Latency Distribution',
      '     50%  512.00us',
      '     99%    2.50ms',
      '  Non-2xx or 3xx responses: 3',
      '  Socket errors: connect 0, read 2, write 0, timeout 1',
      'Requests/sec:  40000.50',
    ].join('\n');
    expect(parseWrk(report)).toEqual({ rate: 40000.5, p50: 0.512, p99: 2.5, failures: 6 });
    expect(() => parseWrk('garbage')).toThrow(/unexpected wrk output/);
  });
});
