/**
 * Scenario 2: client ↔ server over an in-memory transport pair, sequential and 64 in flight.
 * Every implementation uses core's createMemoryTransportPair as the same asynchronous hop.
 */
import { createMemoryTransportPair } from '@jsonrpc-kit/core';
import { add, check, fullGc, kit, lanesFor, METHOD, PARAMS } from '../common.mjs';

/** A hand-written client and server that correlate by id over the pair. */
async function rawCall() {
  const [clientSide, serverSide] = createMemoryTransportPair();
  const methods = new Map([[METHOD, add]]);
  await serverSide.start({
    onMessage(text) {
      const m = JSON.parse(text);
      const handler = methods.get(m.method);
      const response =
        handler === undefined
          ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }
          : { jsonrpc: '2.0', id: m.id, result: handler(m.params) };
      serverSide.send(JSON.stringify(response));
    },
    onClose() {},
  });
  const pending = new Map();
  let nextId = 0;
  await clientSide.start({
    onMessage(text) {
      const m = JSON.parse(text);
      const p = pending.get(m.id);
      if (p === undefined) return;
      pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    },
    onClose() {},
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      clientSide.send(JSON.stringify({ jsonrpc: '2.0', id, method: METHOD, params: PARAMS }));
    });
}

async function kitCall() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const [clientSide, serverSide] = createMemoryTransportPair();
  const server = createServer({});
  server.method(METHOD, add);
  await server.connect(serverSide);
  const client = createClient(clientSide, {});
  return () => client.request(METHOD, PARAMS);
}

async function jsonRpc2Call() {
  const { JSONRPCServer, JSONRPCClient } = await import('json-rpc-2.0');
  const [clientSide, serverSide] = createMemoryTransportPair();
  const server = new JSONRPCServer();
  server.addMethod(METHOD, add);
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
  return () => client.request(METHOD, PARAMS);
}

const factories = { raw: rawCall, kit: kitCall, 'json-rpc-2.0': jsonRpc2Call };

/**
 * Measures one implementation with `inFlight` concurrent callers. `aged`: a full GC after the
 * warm-up, as a process that has run a while has had, so that what lives (the client's and the
 * server's tables among it) is in the old generation when the measurement starts.
 */
export async function run(impl, config, inFlight, aged = false) {
  const call = await factories[impl]();
  check(await call());
  await lanesFor(call, inFlight, config.warmupMs);
  if (aged) fullGc();
  return { value: await lanesFor(call, inFlight, config.measureMs) };
}
