/**
 * Round trips over core's memory transport pair: this client against a minimal echo server
 * written with core's parse/serializeSuccess, next to json-rpc-2.0's client and server and a
 * hand-written baseline over the same pair. Sequential and 64 calls in flight.
 *
 * Run from the repository root after `npx tsc -b`:
 *   node packages/client/bench/roundtrip.mjs [durationMs]
 */
import { createRequire } from 'node:module';
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, parse, serializeSuccess } from '@jsonrpc-kit/core';

const DURATION = Number(process.argv[2] ?? 2000);
const PARAMS = { a: 1, b: 2 };
const add = (p) => p.a + p.b;

async function echoServer(side) {
  await side.start({
    onMessage(text) {
      const parsed = parse(text);
      if (parsed.kind === 'request') {
        side.send(serializeSuccess(parsed.message.id, add(parsed.message.params), parsed.rawId));
      }
    },
    onClose() {},
  });
}

async function kitCall() {
  const [clientSide, serverSide] = createMemoryTransportPair();
  await echoServer(serverSide);
  const client = createClient(clientSide);
  return () => client.request('add', PARAMS);
}

async function rawCall() {
  const [clientSide, serverSide] = createMemoryTransportPair();
  await serverSide.start({
    onMessage(text) {
      const m = JSON.parse(text);
      serverSide.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: add(m.params) }));
    },
    onClose() {},
  });
  const pending = new Map();
  let nextId = 0;
  await clientSide.start({
    onMessage(text) {
      const m = JSON.parse(text);
      const p = pending.get(m.id);
      pending.delete(m.id);
      p.resolve(m.result);
    },
    onClose() {},
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      clientSide.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'add', params: PARAMS }));
    });
}

async function jsonRpc2Call() {
  // json-rpc-2.0 is a dependency of the private bench package.
  const require = createRequire(new URL('../../../bench/package.json', import.meta.url));
  const { JSONRPCServer, JSONRPCClient } = require('json-rpc-2.0');
  const [clientSide, serverSide] = createMemoryTransportPair();
  const server = new JSONRPCServer();
  server.addMethod('add', add);
  await serverSide.start({
    onMessage(text) {
      server.receive(JSON.parse(text)).then((response) => {
        if (response) serverSide.send(JSON.stringify(response));
      });
    },
    onClose() {},
  });
  const client = new JSONRPCClient((request) => clientSide.send(JSON.stringify(request)));
  await clientSide.start({
    onMessage(text) {
      client.receive(JSON.parse(text));
    },
    onClose() {},
  });
  return () => client.request('add', PARAMS);
}

/** Calls per second with `lanes` concurrent callers for `ms` milliseconds. */
async function measure(call, lanes, ms) {
  let count = 0;
  const end = performance.now() + ms;
  const lane = async () => {
    while (performance.now() < end) {
      for (let i = 0; i < 100; i++) {
        if ((await call()) !== 3) throw new Error('wrong result');
        count++;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: lanes }, lane));
  return (count / (performance.now() - start)) * 1000;
}

const impls = { raw: rawCall, client: kitCall, 'json-rpc-2.0': jsonRpc2Call };
const rows = [];
for (const lanes of [1, 64]) {
  const row = { inFlight: lanes };
  for (const [name, factory] of Object.entries(impls)) {
    const call = await factory();
    await measure(call, lanes, DURATION / 4); // warm-up
    row[name] = Math.round(await measure(call, lanes, DURATION));
  }
  row['client/raw'] = (row.client / row.raw).toFixed(2);
  row['client/json-rpc-2.0'] = (row.client / row['json-rpc-2.0']).toFixed(2);
  rows.push(row);
}
console.table(rows);
