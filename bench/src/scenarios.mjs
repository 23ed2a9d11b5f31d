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
const stdioNewlineImpls = [
  { name: 'raw', kind: RAW },
  { name: 'raw-coalesced', kind: RAW },
  { name: 'kit', kind: KIT },
];
const wsImpls = [...stdioNewlineImpls, { name: 'rpc-websockets', kind: PEER }];
/**
 * A WebSocket or stdio throughput row: 64 calls in flight between two processes, a fixed number
 * of calls. Their targets (0.97x of the write-coalesced raw) sit within their spread of a few
 * percent: 9 runs in a full run, for a steadier median, as the tail rows have.
 *
 * @param {string} id
 * @param {string} title
 * @param {{ name: string, kind: string }[]} impls
 * @param {(impl: string, config: object) => Promise<object>} measure
 */
const duplexScenario = (id, title, impls, measure) => ({
  id,
  title,
  unit: 'calls/s',
  cpu: 0,
  impls,
  target: { raw: 1.0, peers: true, floor: { name: 'raw-coalesced', ratio: 0.97 } },
  config: {
    quick: { warmupCalls: 3_000, calls: 15_000 },
    full: { warmupCalls: 20_000, calls: 200_000 },
  },
  reps: { quick: 5, full: 9 },
  measure,
});
const bigImpls = ['1KiB', '64KiB', '1MiB', '16MiB'].flatMap((size) => [
  { name: `raw ${size}`, kind: RAW, group: size },
  { name: `kit ${size}`, kind: KIT, group: size },
]);
const bigColumns = [
  ['held', 'held × size'],
  ['calls', 'calls'],
];
const bigConfig = {
  quick: { bytes: 32 * 1024 * 1024, memoryRounds: 2 },
  full: { bytes: 256 * 1024 * 1024, memoryRounds: 3 },
};

/**
 * Row 13 over one transport: big messages echoed, one call in flight.
 *
 * @param {string} id
 * @param {string} title
 * @param {'http' | 'ws' | 'stdio' | 'streamable'} transport
 */
const bigScenario = (id, title, transport) => ({
  id,
  title,
  unit: 'MB/s',
  cpu: 0,
  impls: bigImpls,
  target: undefined,
  columns: bigColumns,
  reps: { quick: 1, full: 3 },
  config: bigConfig,
  measure: async (impl, config) =>
    (await import('./scenarios/big.mjs')).run(transport, impl, config),
});
const tailConfig = {
  quick: { warmupCalls: 3_000, calls: 20_000 },
  full: { warmupCalls: 20_000, calls: 200_000 },
};
/** A p99 moves with what else the machine does in that second: more runs, for a steadier median. */
const tailReps = { quick: 5, full: 9 };
const tailColumns = [
  ['p50', 'p50 ms'],
  ['p999', 'p99.9 ms'],
];
const wsTailImpls = [
  { name: 'raw-coalesced', kind: RAW },
  { name: 'raw', kind: RAW },
  { name: 'kit', kind: KIT },
  { name: 'rpc-websockets', kind: PEER },
];
const broadcastImpls = [
  { name: 'raw', kind: RAW },
  { name: 'raw-per-subscriber', kind: RAW },
  { name: 'kit', kind: KIT },
  { name: 'rpc-websockets', kind: PEER },
];
const broadcastConfig = {
  quick: { deliveries: 100_000 },
  full: { deliveries: 1_000_000 },
};

/**
 * @typedef {{ name: string, kind: 'raw' | 'kit' | 'peer', group?: string }} Impl
 * `group`: rows compare with the baseline of their group (one message size, say).
 * `lower`: lower is better (costs); the target is then a ceiling.
 * `target.floor`: a second target, at least `ratio` times the baseline row named `name`.
 * @typedef {{
 *   id: string, title: string, unit: string, cpu: number | undefined, nodeArgs?: string[],
 *   lower?: boolean, columns?: Array<[key: string, label: string]>,
 *   timeoutMs?: { quick: number, full: number },
 *   impls: Impl[], kind?: 'heap',
 *   target: { raw: number, peers: boolean, floor?: { name: string, ratio: number } } | undefined,
 *   latency?: boolean, reps?: { quick: number, full: number },
 *   config: { quick: Record<string, number>, full: Record<string, number> },
 *   measure: (impl: string, config: Record<string, number>) => Promise<{ value: number, extra?: Record<string, number> }>,
 * }} Scenario
 */

import { BOUNDED_TABLE_CASES } from './scenarios/bounded-tables.mjs';
import { COST_CASES } from './scenarios/cost.mjs';
import { LONG_QUEUE_CASES } from './scenarios/long-queues.mjs';
import { findWrk } from './wrk.mjs';

/** @type {Scenario[]} */
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
    id: 'memory-64-aged',
    title:
      '2c. Client ↔ server over the memory transport, 64 in flight, after a full GC (a process that has run a while)',
    unit: 'calls/s',
    cpu: 1,
    impls: memoryImpls,
    target: { raw: 0.85, peers: true },
    config: inProcessConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/memory.mjs')).run(impl, config, 64, true),
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
    id: 'streamable-http',
    title:
      '3c. Streamable HTTP, calls/s answered with JSON (one session, 64 in flight); raw: the plain createHttpHandler',
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'kit createHttpHandler', kind: RAW },
      { name: 'kit streaming (JSON answers)', kind: KIT },
      { name: 'MCP SDK (enableJsonResponse)', kind: PEER },
    ],
    target: { raw: 0.6, peers: true },
    config: {
      quick: { warmupMs: 300, measureMs: 1000 },
      full: { warmupMs: 1000, measureMs: 3000 },
    },
    measure: async (impl, config) => (await import('./scenarios/streamable.mjs')).run(impl, config),
  },
  duplexScenario(
    'ws',
    '4a. WebSocket, 64 calls in flight, client and server in separate processes',
    wsImpls,
    async (impl, config) => (await import('./scenarios/ws.mjs')).run(impl, config),
  ),
  duplexScenario(
    'ws-aged',
    '4b. WebSocket, 64 calls in flight, after a full GC in both processes (processes that have run a while)',
    wsImpls,
    async (impl, config) => (await import('./scenarios/ws.mjs')).run(impl, config, true),
  ),
  duplexScenario(
    'stdio-content-length',
    '5a. stdio child process, Content-Length framing, 64 in flight',
    [...stdioNewlineImpls, { name: 'vscode-jsonrpc', kind: PEER }],
    async (impl, config) =>
      (await import('./scenarios/stdio.mjs')).run(impl, config, 'content-length'),
  ),
  duplexScenario(
    'stdio-newline',
    '5b. stdio child process, newline framing, 64 in flight',
    stdioNewlineImpls,
    async (impl, config) => (await import('./scenarios/stdio.mjs')).run(impl, config, 'newline'),
  ),
  duplexScenario(
    'stdio-newline-aged',
    '5c. stdio child process, newline framing, 64 in flight, after a full GC in both processes',
    stdioNewlineImpls,
    async (impl, config) =>
      (await import('./scenarios/stdio.mjs')).run(impl, config, 'newline', true),
  ),
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
  inProcessCost(
    'cost',
    '8. Cost per byte, inputs from 1 KB to the 1 MiB limit (in-process, kit)',
    'ns/byte',
    COST_CASES,
    'cost',
  ),
  inProcessCost(
    'bounded-tables',
    "8b. Cost per item of the kit's bounded tables, from 100 to 10,000 kept (in-process, kit)",
    'ns/item',
    BOUNDED_TABLE_CASES,
    'bounded-tables',
  ),
  inProcessCost(
    'long-queues',
    "8c. Cost per item of the kit's waiting queues, from 10,000 to 100,000 waiting (in-process, kit)",
    'ns/item',
    LONG_QUEUE_CASES,
    'long-queues',
  ),
  {
    id: 'ws-idle',
    title: '9. Memory per idle WebSocket connection (server RSS and heap after GC)',
    unit: 'KiB RSS/conn',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
    ],
    target: { raw: 1.3, peers: true },
    columns: [
      ['heapKiB', 'heap KiB/conn'],
      ['connections', 'connections'],
    ],
    reps: { quick: 1, full: 5 },
    config: {
      quick: { connections: 2_000, settleMs: 500 },
      full: { connections: 2_000, settleMs: 1_000 },
    },
    measure: async (impl, config) =>
      (await import('./scenarios/connections.mjs')).runIdle(impl, config),
  },
  {
    id: 'ws-light',
    title: '10. Many WebSocket connections, one call per second each (server CPU per call)',
    unit: 'µs CPU/call',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
    ],
    target: { raw: 1.15, peers: true },
    // Opening 5,000 sockets on a busy machine can take a while.
    timeoutMs: { quick: 60_000, full: 120_000 },
    columns: [
      ['callsPerSecond', 'calls/s'],
      ['connections', 'connections'],
    ],
    reps: { quick: 1, full: 3 },
    config: {
      quick: { connections: 5_000, warmupMs: 2_000, measureMs: 5_000 },
      full: { connections: 5_000, warmupMs: 5_000, measureMs: 20_000 },
    },
    measure: async (impl, config) =>
      (await import('./scenarios/connections.mjs')).runLight(impl, config),
  },
  {
    id: 'cold-stdio',
    title: '11a. Cold start, stdio server: process start to first answer',
    unit: 'ms',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'kit (app bundled)', kind: KIT },
      { name: 'vscode-jsonrpc', kind: PEER },
      { name: 'mcp-sdk', kind: PEER },
    ],
    target: { raw: 1.1, peers: true },
    columns: [['readyMs', 'ready ms']],
    reps: { quick: 1, full: 5 },
    config: { quick: { starts: 5 }, full: { starts: 15 } },
    measure: async (impl, config) =>
      (await import('./scenarios/cold-start.mjs')).runStdio(impl, config),
  },
  {
    id: 'cold-http',
    title: '11b. Cold start, HTTP server: process start to first answer',
    unit: 'ms',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'kit (app bundled)', kind: KIT },
    ],
    target: { raw: 1.1, peers: true },
    columns: [['readyMs', 'ready ms']],
    reps: { quick: 1, full: 5 },
    config: { quick: { starts: 5 }, full: { starts: 15 } },
    measure: async (impl, config) =>
      (await import('./scenarios/cold-start.mjs')).runHttp(impl, config),
  },
  {
    id: 'import-time',
    title: '11c. Import time of each package: `import()` to its exports, in a fresh process',
    unit: 'ms',
    lower: true,
    cpu: 0,
    impls: [
      { name: '@jsonrpc-kit/core', kind: KIT },
      { name: '@jsonrpc-kit/client', kind: KIT },
      { name: '@jsonrpc-kit/server', kind: KIT },
      { name: '@jsonrpc-kit/transport-http', kind: KIT },
      { name: '@jsonrpc-kit/transport-stdio', kind: KIT },
      { name: '@jsonrpc-kit/transport-ws/client', kind: KIT },
      { name: '@jsonrpc-kit/extensions', kind: KIT },
      { name: 'ws', kind: RAW, group: 'ws' },
      { name: '@jsonrpc-kit/transport-ws', kind: KIT, group: 'ws' },
      { name: '@redis/client', kind: RAW, group: 'redis' },
      { name: '@jsonrpc-kit/redis', kind: KIT, group: 'redis' },
      { name: 'json-rpc-2.0', kind: PEER },
      { name: 'jayson', kind: PEER },
      { name: 'vscode-jsonrpc/node', kind: PEER },
      { name: 'rpc-websockets', kind: PEER },
      { name: 'MCP SDK server (mcp.js)', kind: PEER },
    ],
    target: undefined,
    reps: { quick: 1, full: 3 },
    config: { quick: { starts: 5 }, full: { starts: 15 } },
    measure: async (impl, config) =>
      (await import('./scenarios/import-time.mjs')).run(impl, config),
  },
  {
    id: 'tail-http',
    title: '12a. Tail latency, HTTP server, 64 in flight (undici client)',
    unit: 'ms p99',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'json-rpc-2.0', kind: PEER },
      { name: 'jayson', kind: PEER },
    ],
    target: { raw: 1.1, peers: true },
    columns: tailColumns,
    config: tailConfig,
    reps: tailReps,
    measure: async (impl, config) => (await import('./scenarios/tail.mjs')).runHttp(impl, config),
  },
  {
    id: 'tail-ws',
    title: '12b. Tail latency, WebSocket, 64 in flight',
    unit: 'ms p99',
    lower: true,
    cpu: 0,
    impls: wsTailImpls,
    target: { raw: 1.1, peers: true },
    columns: tailColumns,
    config: tailConfig,
    reps: tailReps,
    measure: async (impl, config) =>
      (await import('./scenarios/tail.mjs')).runWs(impl, config, false),
  },
  {
    id: 'tail-ws-mixed',
    title:
      '12c. Tail latency, WebSocket, 64 in flight, 1 call in 100 takes 20 ms (the others counted)',
    unit: 'ms p99',
    lower: true,
    cpu: 0,
    impls: wsTailImpls,
    target: { raw: 1.1, peers: true },
    columns: tailColumns,
    config: tailConfig,
    reps: tailReps,
    measure: async (impl, config) =>
      (await import('./scenarios/tail.mjs')).runWs(impl, config, true),
  },
  bigScenario(
    'big-http',
    '13a. Big messages over HTTP: echo, 1 in flight (MB/s of payload; held = copies)',
    'http',
  ),
  bigScenario(
    'big-ws',
    '13b. Big messages over WebSocket: echo, 1 in flight (MB/s of payload; held = copies)',
    'ws',
  ),
  bigScenario(
    'big-stdio',
    '13c. Big messages over stdio (newline framing): echo, 1 in flight (MB/s of payload; held = copies)',
    'stdio',
  ),
  bigScenario(
    'big-streamable',
    '13d. Big messages over Streamable HTTP (one session, JSON answers): echo, 1 in flight (MB/s of payload; held = copies)',
    'streamable',
  ),
  {
    id: 'bundle',
    title: '14. Browser client: client + HTTP + WebSocket client, bundled, minified, gzipped',
    unit: 'B gzip',
    lower: true,
    cpu: 1,
    impls: [{ name: 'kit', kind: KIT }],
    target: undefined,
    columns: [
      ['minified', 'minified B'],
      ['budget', 'budget B (pack check)'],
    ],
    reps: { quick: 1, full: 1 },
    config: { quick: {}, full: {} },
    measure: async () => (await import('./scenarios/bundle.mjs')).run(),
  },
  {
    id: 'broadcast-1',
    title:
      '15a. Broadcast of one item to 1 subscribed WebSocket connection (server CPU per delivered item in notes)',
    unit: 'items/s',
    cpu: 0,
    impls: broadcastImpls,
    target: { raw: 1.0, peers: true },
    config: broadcastConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/broadcast.mjs')).run(impl, config, 1),
  },
  {
    id: 'broadcast-100',
    title:
      '15b. Broadcast of one item to 100 subscribed WebSocket connections (server CPU per delivered item in notes)',
    unit: 'items/s',
    cpu: 0,
    impls: broadcastImpls,
    target: { raw: 1.0, peers: true },
    config: broadcastConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/broadcast.mjs')).run(impl, config, 100),
  },
  {
    id: 'broadcast-1000',
    title:
      '15c. Broadcast of one item to 1,000 subscribed WebSocket connections (server CPU per delivered item in notes)',
    unit: 'items/s',
    cpu: 0,
    impls: broadcastImpls,
    target: { raw: 1.0, peers: true },
    config: broadcastConfig,
    measure: async (impl, config) =>
      (await import('./scenarios/broadcast.mjs')).run(impl, config, 1000),
  },
  redisQueueScenario('redis-queue-1w', '16a', 1),
  redisQueueScenario('redis-queue-2w', '16b', 2),
  {
    id: 'redis-fanout',
    title:
      '17. Redis pub/sub fan-out: one publish to 1,000 subscribers over 2 processes (real redis-server)',
    unit: 'deliveries/s',
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
    ],
    target: undefined,
    config: {
      quick: { items: 200 },
      full: { items: 2_000 },
    },
    measure: async (impl, config) =>
      (await import('./scenarios/redis-fanout.mjs')).run(impl, config),
  },
  streamableIdleScenario('streamable-idle', '18a', false),
  streamableIdleScenario('streamable-idle-stream', '18b', true),
  mcpCallsScenario(
    'mcp-http-json',
    '19a. MCP tools/call over Streamable HTTP, answered with JSON (one session, 64 in flight); raw: a bare kit server with a hand-written tools/call',
    (impl, config, mcp) => mcp.runHttp(impl, config, 'json'),
  ),
  mcpCallsScenario(
    'mcp-http-sse',
    '19b. MCP tools/call over Streamable HTTP, answered with an event stream (one session, 64 in flight); raw as 19a',
    (impl, config, mcp) => mcp.runHttp(impl, config, 'sse'),
  ),
  mcpCallsScenario(
    'mcp-stdio',
    '19c. MCP tools/call over stdio, a server child, 64 in flight; raw as 19a',
    (impl, config, mcp) => mcp.runStdio(impl, config),
    { quick: { warmupCalls: 3_000, calls: 15_000 }, full: { warmupCalls: 20_000, calls: 100_000 } },
  ),
  {
    ...streamableIdleScenario('mcp-idle', '19d', false),
    title:
      '19d. Memory per idle MCP session over Streamable HTTP (initialize only; server RSS and heap after GC)',
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit-mcp', kind: KIT },
      { name: 'mcp-sdk', kind: PEER },
    ],
    target: undefined,
  },
  {
    id: 'mcp-cold-stdio',
    title: '19e. Cold start, MCP server on stdio: process start to the answer of ping',
    unit: 'ms',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit-mcp', kind: KIT },
      { name: 'mcp-sdk', kind: PEER },
    ],
    target: undefined,
    columns: [['readyMs', 'ready ms']],
    reps: { quick: 1, full: 5 },
    config: { quick: { starts: 5 }, full: { starts: 15 } },
    measure: async (impl, config) =>
      (await import('./scenarios/cold-start.mjs')).runStdio(impl, config),
  },
];

/**
 * An MCP `tools/call` throughput row (19a–19c): the bare kit server as the baseline, the kit's
 * `createMcpServer`, the MCP SDK's `McpServer`.
 *
 * @param {string} id - the scenario id
 * @param {string} title - its title in the tables
 * @param {(impl: string, config: object, mcp: object) => Promise<object>} measure - given the
 *   `./scenarios/mcp.mjs` module
 * @param {object} [config] - the workload sizes
 */
function mcpCallsScenario(id, title, measure, config) {
  return {
    id,
    title,
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'kit bare tools/call', kind: RAW },
      { name: 'kit createMcpServer', kind: KIT },
      { name: 'MCP SDK McpServer', kind: PEER },
    ],
    target: undefined,
    config: config ?? {
      quick: { warmupMs: 300, measureMs: 1000 },
      full: { warmupMs: 1000, measureMs: 3000 },
    },
    measure: async (impl, c) => measure(impl, c, await import('./scenarios/mcp.mjs')),
  };
}

/** Cost per byte allowed at the largest size of a shape: ≤ its smallest size's × this. */
export const COST_FLAT_LIMIT = 2;

/** RSS growth allowed by the non-reading-peer scenario, in MB. */
export const GROWTH_LIMIT_MB = 32;

/** Heap growth allowed by the memory scenario: end ≤ start × this. */
export const HEAP_LIMIT = 1.1;

/**
 * The Redis Streams queue row for a number of workers in the caller's process.
 *
 * @param {string} id - the scenario id
 * @param {string} number - its number in the tables
 * @param {number} workers - how many workers take requests
 */
function redisQueueScenario(id, number, workers) {
  return {
    id,
    title: `${number}. Redis Streams queue, ${workers} worker${workers === 1 ? '' : 's'} in the caller's process, 64 in flight (real redis-server)`,
    unit: 'calls/s',
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
    ],
    target: undefined,
    // Warmed up as the other throughput rows are (20,000 calls): after 3,000 the kit's longer
    // path was still being optimized during the run, and its rate moved by a third between runs.
    config: {
      quick: { warmupCalls: 3_000, calls: 15_000 },
      full: { warmupCalls: 20_000, calls: 100_000 },
    },
    measure: async (impl, config) =>
      (await import('./scenarios/redis-queue.mjs')).run(impl, config, workers),
  };
}

/**
 * The memory-per-idle-session row of Streamable HTTP, without or with each session's GET stream.
 *
 * @param {string} id - the scenario id
 * @param {string} number - its number in the tables
 * @param {boolean} streams - whether each session holds its GET event stream open
 */
function streamableIdleScenario(id, number, streams) {
  return {
    id,
    title: `${number}. Memory per idle Streamable HTTP session${streams ? ' holding its GET event stream' : ' (initialize only)'} (server RSS and heap after GC)`,
    unit: 'KiB RSS/session',
    lower: true,
    cpu: 0,
    impls: [
      { name: 'raw', kind: RAW },
      { name: 'kit', kind: KIT },
      { name: 'mcp-sdk', kind: PEER },
    ],
    target: { raw: 1.3, peers: true },
    // Opening thousands of sessions on a busy machine can take a while.
    timeoutMs: { quick: 120_000, full: 180_000 },
    columns: [
      ['heapKiB', 'heap KiB/session'],
      ['sessions', 'sessions'],
    ],
    reps: { quick: 1, full: 5 },
    config: {
      // Without streams sessions share 8 sockets, so there can be more of them: at 2,000 the
      // growth of the process's own memory still weighs as much as theirs.
      quick: { sessions: streams ? 2_000 : 10_000, settleMs: 500 },
      full: { sessions: streams ? 2_000 : 10_000, settleMs: 1_000 },
    },
    measure: async (impl, config) =>
      (await import('./scenarios/streamable-idle.mjs')).runIdle(impl, config, streams),
  };
}

/**
 * A row of in-process costs of the kit alone (per byte or per item), flat or not across the
 * inputs its cases name (`<what>/<size or bound>`).
 *
 * @param {string} id - the scenario id
 * @param {string} title - its title in the tables
 * @param {string} unit - what one value counts
 * @param {string[]} cases - the cases, one table cell each
 * @param {string} file - the scenario module in `./scenarios/`, whose `run(name, config)` measures
 */
function inProcessCost(id, title, unit, cases, file) {
  return {
    id,
    title,
    unit,
    kind: 'cost',
    cpu: 1,
    impls: cases.map((name) => ({ name, kind: KIT })),
    target: undefined,
    reps: { quick: 1, full: 3 },
    config: {
      quick: { measureMs: 150 },
      full: { measureMs: 1000 },
    },
    measure: async (impl, config) => (await import(`./scenarios/${file}.mjs`)).run(impl, config),
  };
}
