import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ConformanceConfigInput } from '../src/config.js';
import { runConformance } from '../src/run.js';
import { PEER_SERVER, quote, startChild } from './support.js';

/** What the tool is told about the peers: no stated limits, no cancellation. */
const PEER_CONFIG: ConformanceConfigInput = {
  maxBodyBytes: null,
  maxBatchSize: null,
  cancellation: [],
  methods: { sleep: null },
};
/** vscode-jsonrpc speaks LSP's cancellation; its adapter has a cancellable `sleep`. */
const LSP_PEER_CONFIG: ConformanceConfigInput = { maxBodyBytes: null, maxBatchSize: null };

const README = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md'),
  'utf8',
);
const require = createRequire(import.meta.url);
/** A dependency's version (from its package.json, which not every package exports). */
function version(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === name) return pkg.version;
  }
  throw new Error(`no package.json for ${name}`);
}

/** The README's score row for a peer: `| json-rpc-2.0 1.8.1 | HTTP | 38 | 14 | 0 | ids |`. */
function readmeRow(label: string, endpoint: string) {
  const row = README.split('\n').find((line) => line.startsWith(`| ${label} | ${endpoint} |`));
  if (row === undefined) return undefined;
  const cells = row.split('|').map((cell) => cell.trim());
  return {
    passed: Number(cells[3]),
    failed: Number(cells[4]),
    skipped: Number(cells[5]),
    failedIds: [...(cells[6] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]),
  };
}

const PEERS = [
  { library: 'json-rpc-2.0', transport: 'http', endpoint: 'HTTP', uncaught: [] },
  {
    library: 'json-rpc-2.0',
    transport: 'ws',
    endpoint: 'WebSocket',
    uncaught: [],
  },
  {
    library: 'jayson',
    transport: 'http',
    endpoint: 'HTTP',
    uncaught: ['Error: crash requested', 'RangeError: Maximum call stack size exceeded'],
  },
  {
    library: 'jayson',
    transport: 'ws',
    endpoint: 'WebSocket',
    uncaught: [
      'Error: crash requested',
      'Error: Invalid WebSocket frame: invalid UTF-8 sequence',
      'RangeError: Maximum call stack size exceeded',
    ],
  },
  {
    library: 'vscode-jsonrpc',
    transport: 'stdio',
    endpoint: 'stdio (Content-Length)',
    uncaught: [],
  },
] as const;

describe('peer libraries behind tiny adapters: the scores the README publishes', () => {
  for (const peer of PEERS) {
    it(`${peer.library} over ${peer.endpoint}`, async () => {
      let report: Awaited<ReturnType<typeof runConformance>>;
      let stderr: string | undefined;
      if (peer.transport === 'stdio') {
        const command = `${quote(process.execPath)} ${quote(PEER_SERVER)} ${peer.library} stdio`;
        report = await runConformance({
          target: { stdio: command, framing: 'content-length' },
          config: LSP_PEER_CONFIG,
        });
      } else {
        const server = await startChild(PEER_SERVER, [peer.library, peer.transport]);
        try {
          const url = server.urls[0]!;
          report = await runConformance({
            target: peer.transport === 'http' ? { http: url } : { ws: url },
            config: PEER_CONFIG,
          });
        } finally {
          await server.close();
        }
        stderr = server.stderr();
      }
      const failedIds = report.results.filter((r) => r.status === 'fail').map((r) => r.id);
      // The tool catches what the issue measured by hand: ids beyond 2^53 at least.
      expect(failedIds).toContain('id.beyond-2-53');
      expect(report.ok).toBe(false);
      const row = readmeRow(`${peer.library} ${version(peer.library)}`, peer.endpoint);
      expect(row, 'the README has a score row for this peer and version').toBeDefined();
      expect({ ...row }).toEqual({
        passed: report.passed,
        failed: report.failed,
        skipped: report.skipped,
        failedIds,
      });
      if (stderr === undefined) return; // a stdio child's stderr is not kept
      // Inputs that raise an uncaught exception (the adapter survives them to score the rest).
      const uncaught = [...new Set(stderr.match(/^uncaught: .*$/gm) ?? [])]
        .map((line) => line.slice('uncaught: '.length))
        .sort();
      expect(uncaught).toEqual([...peer.uncaught].sort());
    }, 180_000);
  }
});
