/**
 * Streamable HTTP: the kit's handler against the MCP SDK's StreamableHTTPServerTransport, both
 * driven by the same raw undici client (one session, 64 calls in flight): calls/s with JSON answers
 * and with event-stream answers, and notifications/s delivered over one event stream.
 *
 *   node bench/src/streamable-http.mjs [--ms 2000]
 *
 * Server and client share one process (so the numbers compare the two servers, not absolute
 * capacity). Run after `pnpm build`.
 */
import { lanesFor } from './common.mjs';
import { kitServer, plainKitServer, rawClient, sdkServer } from './scenarios/streamable.mjs';

const at = process.argv.indexOf('--ms');
const MS = at === -1 ? 2000 : Number(process.argv[at + 1]);
const NOTIFICATIONS = Number(process.env.NOTIFICATIONS ?? 2000);

async function measure(label, start) {
  const server = await start();
  try {
    const client = await rawClient(server.url);
    const one = await client.call('add');
    const kind = one.startsWith('{') ? 'json' : 'sse';
    await lanesFor(() => client.call('add'), 64, Math.min(500, MS), 1);
    // CPU time per call (client and server share this process): steadier than calls/s on a
    // machine that other work shares.
    const cpu0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    const rate = await lanesFor(() => client.call('add'), 64, MS, 1);
    const cpu = process.cpuUsage(cpu0);
    const calls = (rate * Number(process.hrtime.bigint() - w0)) / 1e9;
    const cpuPerCall = Math.round((cpu.user + cpu.system) / calls);
    const t0 = process.hrtime.bigint();
    const flood = await client.call(label.includes('no streaming') ? 'add' : 'flood');
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const got = (flood.match(/notifications\/message/g) ?? []).length;
    await client.close();
    // A server answering JSON only has no stream to carry them (the SDK then drops them).
    const notificationsPerSecond =
      got === NOTIFICATIONS ? Math.round(NOTIFICATIONS / seconds) : `n/a (${got} arrived)`;
    return { label, kind, callsPerSecond: Math.round(rate), cpuPerCall, notificationsPerSecond };
  } finally {
    await server.stop();
  }
}

const rows = [];
if (process.argv.includes('--plain'))
  rows.push(await measure('kit createHttpHandler (no streaming)', plainKitServer));
rows.push(await measure('kit (auto: JSON answers)', () => kitServer('auto', NOTIFICATIONS)));
rows.push(await measure('kit (sse answers)', () => kitServer('sse', NOTIFICATIONS)));
rows.push(await measure('MCP SDK (sse answers)', () => sdkServer(false, NOTIFICATIONS)));
rows.push(await measure('MCP SDK (enableJsonResponse)', () => sdkServer(true, NOTIFICATIONS)));
console.log(
  `| server | answers | calls/s (64 in flight) | CPU µs per call | notifications/s (one stream, ${NOTIFICATIONS}) |`,
);
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.kind} | ${r.callsPerSecond} | ${r.cpuPerCall} | ${r.notificationsPerSecond} |`,
  );
}
process.exit(0);
