import { describe, expect, it } from 'vitest';
import { percentile, timedLanes } from '../src/common.mjs';
import { formatTable, runSuite } from '../src/harness.mjs';
import { socketBudget } from '../src/scenarios/connections.mjs';

/** The data rows of a rendered table. */
function dataRows(table: string): string[] {
  return table.split('\n').filter((line) => line.startsWith('| ') && !/^\| (impl|---) /.test(line));
}

describe('cost rows (lower is better), extra columns and groups', () => {
  const scenario = {
    id: 'x',
    title: 'x',
    unit: 'ms',
    lower: true,
    target: { raw: 1.1, peers: true },
    columns: [['importMs', 'import ms']],
  };
  const row = (impl: string, kind: string, median: number, group?: string) => ({
    impl,
    kind,
    group,
    median,
    values: [median],
    extra: { importMs: median / 10 },
  });

  it('takes the smallest peer as the best and the target as a ceiling', () => {
    const table = formatTable({
      scenario,
      rows: [
        row('raw', 'raw', 100),
        row('kit', 'kit', 105),
        row('slow-peer', 'peer', 300),
        row('fast-peer', 'peer', 150),
      ],
    });
    const [raw, kit, slowPeer] = dataRows(table);
    expect(raw).toMatch(/^\| raw \(baseline\) \| 100 \| 1\.00x \| 0\.67x \| 10 \|/);
    expect(kit).toMatch(
      /\| 1\.05x \| 0\.70x \| 10\.5 \| target ≤1\.10x raw: met; ahead of peers: yes/,
    );
    expect(slowPeer).toMatch(/\| 3\.00x \| 2\.00x \|/);
    const missed = formatTable({
      scenario,
      rows: [row('raw', 'raw', 100), row('kit', 'kit', 120)],
    });
    expect(dataRows(missed)[1]).toContain('target ≤1.10x raw: missed');
  });

  it('checks a second floor against a named baseline, to three places', () => {
    const duplex = {
      ...scenario,
      lower: false,
      columns: [],
      target: { raw: 1.0, peers: true, floor: { name: 'raw-coalesced', ratio: 0.97 } },
    };
    const rows = (kit: number) => [
      row('raw', 'raw', 100),
      row('raw-coalesced', 'raw', 300),
      row('kit', 'kit', kit),
    ];
    // 0.966x prints as 0.97x in the ratio columns, yet misses the 0.97x floor.
    expect(dataRows(formatTable({ scenario: duplex, rows: rows(289.8) }))[2]).toContain(
      'target ≥1.00x raw: met; ≥0.97x raw-coalesced: missed (0.966x); ahead of peers: yes',
    );
    expect(dataRows(formatTable({ scenario: duplex, rows: rows(292) }))[2]).toContain(
      '≥0.97x raw-coalesced: met (0.973x)',
    );
    const alone = formatTable({
      scenario: duplex,
      rows: [row('raw', 'raw', 100), row('kit', 'kit', 99)],
    });
    expect(dataRows(alone)[1]).toContain(
      'target ≥1.00x raw: missed; ≥0.97x raw-coalesced: not run;',
    );
  });

  it('compares each row with the baseline of its own group', () => {
    const table = formatTable({
      scenario: { ...scenario, lower: false, target: undefined, columns: [] },
      rows: [
        row('raw 1KiB', 'raw', 10, '1KiB'),
        row('kit 1KiB', 'kit', 5, '1KiB'),
        row('raw 1MiB', 'raw', 100, '1MiB'),
        row('kit 1MiB', 'kit', 90, '1MiB'),
      ],
    });
    const rows = dataRows(table);
    expect(rows[1]).toMatch(/^\| \*\*kit 1KiB\*\* \| 5 \| 0\.50x \|/);
    expect(rows[3]).toMatch(/^\| \*\*kit 1MiB\*\* \| 90 \| 0\.90x \|/);
  });
});

describe('new harness pieces', () => {
  it('reads the open-files limit and leaves a margin', () => {
    const limits =
      'Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 4096                 files\n';
    expect(socketBudget(5000, limits)).toBe(768);
    expect(socketBudget(500, limits)).toBe(500);
    expect(socketBudget(5000, 'Max open files  unlimited  unlimited  files')).toBe(5000);
    expect(socketBudget(5000, undefined)).toBe(5000);
  });

  it('takes nearest-rank percentiles and times every call it is asked to', async () => {
    const sorted = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(500);
    expect(percentile(sorted, 99)).toBe(990);
    expect(percentile(sorted, 99.9)).toBe(999);
    expect(percentile([], 99)).toBeUndefined();
    const seen: number[] = [];
    const latencies = await timedLanes(
      async (i: number) => {
        seen.push(i);
      },
      4,
      50,
      (i: number) => i % 10 !== 9,
    );
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(latencies).toHaveLength(45);
    expect(latencies).toEqual([...latencies].sort((a, b) => a - b));
    // Milliseconds, as a plain array; a call that waits is timed as long as it waited.
    const waited = await timedLanes(() => new Promise((r) => setTimeout(r, 5)), 2, 4);
    expect(Array.isArray(waited)).toBe(true);
    expect(waited).toHaveLength(4);
    for (const ms of waited) expect(ms).toBeGreaterThanOrEqual(4);
  });
});

describe('new rows, run for real at a tiny size', () => {
  it('measures idle WebSocket memory, cold starts and big messages in fresh processes', async () => {
    const results = await runSuite({
      quick: true,
      only: ['ws-idle', 'cold-http', 'big-ws'],
      impls: ['raw', 'raw 64KiB'],
      reps: 1,
      scale: 0.01,
    });
    expect(results.map((r) => r.scenario.id)).toEqual(['ws-idle', 'cold-http', 'big-ws']);
    for (const { rows } of results) {
      expect(rows).toHaveLength(1);
      const [row] = rows;
      expect(row.note).toBeUndefined();
      expect(Number.isFinite(row.median)).toBe(true);
    }
    const [idle, cold, big] = results;
    expect(idle!.rows[0].extra.connections).toBe(20);
    expect(cold!.rows[0].median).toBeGreaterThan(0);
    expect(big!.rows[0].extra.held).toBeGreaterThan(0);
  }, 60_000);

  it('echoes big messages over one Streamable HTTP session, kit and raw', async () => {
    const results = await runSuite({
      quick: true,
      only: ['big-streamable'],
      impls: ['raw 64KiB', 'kit 64KiB'],
      reps: 1,
      scale: 0.01,
    });
    const [{ rows }] = results as [{ rows: Record<string, any>[] }];
    expect(rows.map((row) => row.impl)).toEqual(['raw 64KiB', 'kit 64KiB']);
    for (const row of rows) {
      expect(row.note).toBeUndefined();
      expect(row.median).toBeGreaterThan(0);
      expect(row.extra.held).toBeGreaterThan(0);
    }
  }, 60_000);

  it('times the import of a kit package and of the dependency it sits on, each in a fresh process', async () => {
    const results = await runSuite({
      quick: true,
      only: ['import-time'],
      impls: ['ws', '@jsonrpc-kit/transport-ws'],
      reps: 1,
      scale: 0.01,
    });
    const [{ rows }] = results;
    expect(rows.map((row) => row.impl)).toEqual(['ws', '@jsonrpc-kit/transport-ws']);
    for (const row of rows) {
      expect(row.note).toBeUndefined();
      // More than nothing, and less than the child's 10 s limit.
      expect(row.median).toBeGreaterThan(0);
      expect(row.median).toBeLessThan(10_000);
    }
    // Both in the group of `ws`: the kit's row compares with ws alone.
    expect(rows.map((row) => row.group)).toEqual(['ws', 'ws']);
  }, 60_000);

  it('measures idle Streamable HTTP sessions, without and with their GET streams', async () => {
    const results = await runSuite({
      quick: true,
      only: ['streamable-idle', 'streamable-idle-stream'],
      impls: ['kit', 'mcp-sdk'],
      reps: 1,
      scale: 0.01,
    });
    expect(results.map((r) => r.scenario.id)).toEqual([
      'streamable-idle',
      'streamable-idle-stream',
    ]);
    // Scaled by 0.01: 10,000 sessions without streams, 2,000 with.
    const sessions = [100, 20];
    for (const [i, { rows }] of results.entries()) {
      expect(rows.map((row) => row.impl)).toEqual(['kit', 'mcp-sdk']);
      for (const row of rows) {
        expect(row.note).toBeUndefined();
        expect(row.extra.sessions).toBe(sessions[i]);
        expect(Number.isFinite(row.extra.heapKiB)).toBe(true);
      }
    }
  }, 60_000);
});

describe('the duplex rows split their cost between client and server', () => {
  it('prints the CPU per call of each side, read in each process', async () => {
    const results = await runSuite({
      quick: true,
      only: ['ws', 'stdio-newline'],
      impls: ['raw-coalesced', 'kit'],
      reps: 1,
      scale: 0.2,
    });
    expect(results.map((r) => r.scenario.id)).toEqual(['ws', 'stdio-newline']);
    for (const result of results) {
      expect(result.rows.map((row: { impl: string }) => row.impl)).toEqual([
        'raw-coalesced',
        'kit',
      ]);
      for (const row of result.rows) {
        expect(row.note).toBeUndefined();
        // A call costs each side some CPU, and far less than a millisecond.
        for (const side of ['clientCpuUs', 'serverCpuUs']) {
          expect(row.extra[side]).toBeGreaterThan(0);
          expect(row.extra[side]).toBeLessThan(1000);
        }
      }
      for (const line of dataRows(formatTable(result))) {
        expect(line).toMatch(/CPU µs\/call: client \d+\.\d\d, server \d+\.\d\d/);
      }
    }
  }, 60_000);
});
