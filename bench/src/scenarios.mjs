/**
 * The scenarios: what is measured, by which implementations, with which workload sizes.
 * Scenario modules are imported lazily so a worker loads only what it measures.
 */

const RAW = 'raw';
const KIT = 'kit';
const PEER = 'peer';

const inProcessConfig = {
  quick: { warmupMs: 100, measureMs: 250 },
  full: { warmupMs: 500, measureMs: 1500 },
};
const inProcessImpls = [
  { name: 'raw', kind: RAW },
  { name: 'kit', kind: KIT },
  { name: 'json-rpc-2.0', kind: PEER },
  { name: 'jayson', kind: PEER },
];
const memoryImpls = [
  { name: 'raw', kind: RAW },
  { name: 'kit', kind: KIT },
  { name: 'json-rpc-2.0', kind: PEER },
];
const wsConfig = {
  quick: { warmupCalls: 3_000, calls: 15_000 },
  full: { warmupCalls: 20_000, calls: 200_000 },
};
const stdioConfig = wsConfig;

/**
 * @typedef {{ name: string, kind: 'raw' | 'kit' | 'peer' }} Impl
 * @typedef {{
 *   id: string, title: string, unit: string, cpu: number | undefined, nodeArgs?: string[],
 *   impls: Impl[], target: { raw: number, peers: boolean } | undefined, kind?: 'heap',
 *   latency?: boolean, reps?: { quick: number, full: number },
 *   config: { quick: Record<string, number>, full: Record<string, number> },
 *   measure: (impl: string, config: Record<string, number>) => Promise<{ value: number, extra?: Record<string, number> }>,
 * }} Scenario
 */

/** @type {Scenario[]} */
import { COST_CASES } from './scenarios/cost.mjs';
import { findWrk } from './wrk.mjs';

export const SCENARIOS = [
  {
    id: 'in-process',
    title: '1a. In-process: one request text → response text',
    unit: 'ops/s',
    cpu: 1,
    impls: inProcessImpls,
    target: { raw: 0.85, peers: true },
    config: inProcessConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/in-process.mjs')).run(impl, config, false),
  },
  {
    id: 'in-process-batch',
    title: '1b. In-process: a 100-request batch text → response text',
    unit: 'batches/s',
    cpu: 1,
    impls: inProcessImpls,
    target: { raw: 0.85, peers: true },
    config: inProcessConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/in-process.mjs')).run(impl, config, true),
  },
  {
    id: 'memory-seq',
    title: '2a. Client ↔ server over the memory transport, sequential',
    unit: 'calls/s',
    cpu: 1,
    impls: memoryImpls,
    target: { raw: 0.85, peers: true },
    config: inProcessConfig,
    measure: async (impl, config) => (await import('./scenarios/memory.mjs')).run(impl, config, 1),
  },
  {
    id: 'memory-64',
    title: '2b. Client ↔ server over the memory transport, 64 in flight',
    unit: 'calls/s',
    cpu: 1,
    impls: memoryImpls,
    target: { raw: 0.85, peers: true },
    config: inProcessConfig,
    measure: async (impl, config) => (await import('./scenarios/memory.mjs')).run(impl, config, 64),
  },
  {
    id: 'http-server',
    title: `3a. HTTP server on 127.0.0.1 (${findWrk() === undefined ? 'autocannon' : 'wrk'}, 64 keep-alive connections)`,
    unit: 'req/s',
    cpu: 0,
    latency: true,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'json-rpc-2.0', kind: PEER },
      { name: 'jayson', kind: PEER },
    ],
    target: { raw: 0.95, peers: true },
    config: {
      quick: { warmupMs: 600, measureMs: 1000 },
      full: { warmupMs: 1000, measureMs: 3000 },
    },
    measure: async (impl, config) => (await import('./scenarios/http.mjs')).runServer(impl, config),
  },
  {
    id: 'http-client',
    title: '3b. HTTP client against the raw server, 64 in flight',
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'undici', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'fetch', kind: PEER },
    ],
    target: { raw: 0.9, peers: true },
    config: {
      quick: { warmupMs: 300, measureMs: 500 },
      full: { warmupMs: 1000, measureMs: 2000 },
    },
    measure: async (impl, config) => (await import('./scenarios/http.mjs')).runClient(impl, config),
  },
  {
    id: 'ws',
    title: '4. WebSocket, 64 calls in flight, client and server in separate processes',
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'raw-coalesced', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'rpc-websockets', kind: PEER },
    ],
    target: { raw: 1.0, peers: true },
    config: wsConfig,
    measure: async (impl, config) => (await import('./scenarios/ws.mjs')).run(impl, config),
  },
  {
    id: 'stdio-content-length',
    title: '5a. stdio child process, Content-Length framing, 64 in flight',
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'raw-coalesced', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'vscode-jsonrpc', kind: PEER },
    ],
    target: { raw: 1.0, peers: true },
    config: stdioConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/stdio.mjs')).run(impl, config, 'content-length'),
  },
  {
    id: 'stdio-newline',
    title: '5b. stdio child process, newline framing, 64 in flight',
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'raw-coalesced', kind: RAW },
      { name: 'kit', kind: KIT },
    ],
    target: { raw: 1.0, peers: true },
    config: stdioConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/stdio.mjs')).run(impl, config, 'newline'),
  },
  {
    id: 'heap',
    title:
      '6. Heap after many calls with timeouts and aborts (kit client + server, memory transport)',
    unit: 'end/start',
    kind: 'heap',
    cpu: 1,
    nodeArgs: ['--expose-gc'],
    impls: [{ name: 'kit', kind: KIT }],
    target: undefined,
    reps: { quick: 1, full: 3 },
    config: {
      quick: { warmupCalls: 10_000, calls: 100_000 },
      full: { warmupCalls: 50_000, calls: 1_000_000 },
    },
    measure: async (impl, config) => (await import('./scenarios/heap.mjs')).run(impl, config),
  },
  {
    id: 'non-reading',
    title: '7. Memory with a peer that sends requests and never reads (server RSS growth)',
    unit: 'MB',
    kind: 'growth',
    cpu: 0,
    impls: [
      { name: 'stdio', kind: KIT },
      { name: 'tcp', kind: KIT },
      { name: 'ws', kind: KIT },
      { name: 'tcp-no-pause', kind: RAW },
    ],
    target: undefined,
    reps: { quick: 1, full: 3 },
    config: {
      quick: { requests: 50_000, watchMs: 5_000 },
      full: { requests: 200_000, watchMs: 15_000 },
    },
    measure: async (impl, config) =>
      (await import('./scenarios/non-reading.mjs')).run(impl, config),
  },
  {
    id: 'cost',
    title: '8. Cost per byte, inputs from 1 KB to the 1 MiB limit (in-process, kit)',
    unit: 'ns/byte',
    kind: 'cost',
    cpu: 1,
    impls: COST_CASES.map((name) => ({ name, kind: KIT })),
    target: undefined,
    reps: { quick: 1, full: 3 },
    config: {
      quick: { measureMs: 150 },
      full: { measureMs: 1000 },
    },
    measure: async (impl, config) => (await import('./scenarios/cost.mjs')).run(impl, config),
  },
];

/** Cost per byte allowed at the largest size of a shape: ≤ its smallest size's × this. */
export const COST_FLAT_LIMIT = 2;

/** RSS growth allowed by the non-reading-peer scenario, in MB. */
export const GROWTH_LIMIT_MB = 32;

/** Heap growth allowed by the memory scenario: end ≤ start × this. */
export const HEAP_LIMIT = 1.1;
