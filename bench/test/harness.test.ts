import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kit, NotBuilt } from '../src/common.mjs';
import {
  formatReport,
  formatTable,
  median,
  rotate,
  runSuite,
  writeResults,
} from '../src/harness.mjs';

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

  it('writes latest.md only when every row measured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    try {
      const scenario = { id: 'redis-fanout', unit: 'deliveries/s' };
      const measured = { impl: 'raw', kind: 'raw', median: 10, values: [10] };
      const skipped = { impl: 'kit', kind: 'kit', note: 'n/a: redis-server not installed' };

      const partial = writeResults([{ scenario, rows: [measured, skipped] }], 'partial\n', dir);
      expect(partial.unmeasured).toEqual(['redis-fanout kit: n/a: redis-server not installed']);
      expect(partial.file).toMatch(/^\d{4}-.+\.md$/);
      expect(existsSync(join(dir, 'latest.md'))).toBe(false);
      expect(readFileSync(join(dir, partial.file), 'utf8')).toBe('partial\n');

      const full = writeResults([{ scenario, rows: [measured] }], 'full\n', dir);
      expect(full).toEqual({ file: 'latest.md', unmeasured: [] });
      expect(readFileSync(join(dir, 'latest.md'), 'utf8')).toBe('full\n');
      // The raw runs are written either way (one name per millisecond: both calls may share it).
      expect(readdirSync(dir).some((name) => name.endsWith('.json'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
