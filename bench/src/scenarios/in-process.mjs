/**
 * Scenario 1: one request text → response text, and a 100-request batch, in one process.
 */
import { add, BATCH_TEXT, kit, METHOD, REQUEST_TEXT } from '../common.mjs';

function rawHandle() {
  const methods = new Map([[METHOD, add]]);
  const one = (m) => {
    const handler = typeof m.method === 'string' ? methods.get(m.method) : undefined;
    if (handler === undefined) {
      return {
        jsonrpc: '2.0',
        id: m.id ?? null,
        error: { code: -32601, message: 'Method not found' },
      };
    }
    return { jsonrpc: '2.0', id: m.id, result: handler(m.params) };
  };
  return (text) => {
    const message = JSON.parse(text);
    if (Array.isArray(message)) {
      const out = new Array(message.length);
      for (let i = 0; i < message.length; i++) out[i] = one(message[i]);
      return JSON.stringify(out);
    }
    return JSON.stringify(one(message));
  };
}

async function kitHandle() {
  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const server = createServer({});
  server.method(METHOD, add);
  return (text) => server.handle(text);
}

async function jsonRpc2Handle() {
  const { JSONRPCServer } = await import('json-rpc-2.0');
  const server = new JSONRPCServer();
  server.addMethod(METHOD, add);
  const stringify = (response) => JSON.stringify(response);
  return (text) => server.receiveJSON(text).then(stringify);
}

async function jaysonHandle() {
  const { default: jayson } = await import('jayson');
  const server = new jayson.Server({ [METHOD]: (args, callback) => callback(null, add(args)) });
  return (text) => {
    // jayson answers through a callback; when it calls back synchronously, return the text
    // directly, otherwise wait for it.
    let out;
    let settle;
    server.call(text, (error, response) => {
      out = JSON.stringify(error ?? response);
      if (settle !== undefined) settle(out);
    });
    if (out !== undefined) return out;
    return new Promise((resolve) => {
      settle = resolve;
    });
  };
}

const factories = {
  raw: rawHandle,
  kit: kitHandle,
  'json-rpc-2.0': jsonRpc2Handle,
  jayson: jaysonHandle,
};

async function loopFor(fn, text, ms) {
  let done = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  let sink = 0;
  for (;;) {
    for (let i = 0; i < 128; i++) {
      let r = fn(text);
      if (typeof r !== 'string') r = await r;
      sink += r.length;
    }
    done += 128;
    if (process.hrtime.bigint() >= deadline) break;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (sink === 0) throw new Error('empty responses');
  return done / seconds;
}

/** Measures one implementation; `batch` selects the 100-request batch. */
export async function run(impl, config, batch) {
  const fn = await factories[impl]();
  const text = batch ? BATCH_TEXT : REQUEST_TEXT;
  // Check the answer once before timing: a broken path must not look fast.
  const sample = JSON.parse(await fn(text));
  const answers = Array.isArray(sample) ? sample : [sample];
  if (answers.length !== (batch ? 100 : 1) || answers.some((a) => a.result !== 3)) {
    throw new Error(`wrong answer: ${JSON.stringify(sample).slice(0, 200)}`);
  }
  await loopFor(fn, text, config.warmupMs);
  return { value: await loopFor(fn, text, config.measureMs) };
}
