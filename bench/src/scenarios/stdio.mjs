/**
 * Scenario 5: a stdio child process, Content-Length or newline framing, 64 calls in flight, a
 * fixed number of calls. The child is pinned to CPU 1; this process (the parent) runs on CPU 0.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ageBothSides,
  check,
  kit,
  lanes,
  lanesWithCpu,
  METHOD,
  nodeCommand,
  PARAMS,
} from '../common.mjs';
import { coalescingWriter, decoder, perFrameWriter } from '../stdio-frames.mjs';

const CHILD_FILE = fileURLToPath(new URL('../children/stdio-child.mjs', import.meta.url));

function spawnChild(impl, framing) {
  const [cmd, args] = nodeCommand(CHILD_FILE, [impl, framing], 1);
  return spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    timer.unref();
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin.end();
  });
}

async function rawParent(framing, coalesce) {
  const child = spawnChild(coalesce ? 'raw-coalesced' : 'raw', framing);
  const write = coalesce
    ? coalescingWriter(child.stdin, framing)
    : perFrameWriter(child.stdin, framing);
  const pending = new Map();
  let nextId = 0;
  child.stdout.on(
    'data',
    decoder(framing, (text) => {
      const m = JSON.parse(text);
      const p = pending.get(m.id);
      if (p === undefined) return;
      pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    }),
  );
  const call = (method = METHOD, params = PARAMS) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  return { call, close: () => stopChild(child) };
}

async function kitParent(framing) {
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const { spawnTransport } = await kit('@jsonrpc-kit/transport-stdio', 'spawnTransport');
  const [cmd, args] = nodeCommand(CHILD_FILE, ['kit', framing], 1);
  const transport = spawnTransport(cmd, args, { framing });
  const client = createClient(transport, {});
  return {
    call: (method = METHOD, params = PARAMS) => client.request(method, params),
    close: () => (typeof client.close === 'function' ? client.close() : transport.close()),
  };
}

async function vscodeParent(framing) {
  if (framing !== 'content-length') throw new Error('vscode-jsonrpc speaks Content-Length only');
  const rpc = await import('vscode-jsonrpc/node');
  const child = spawnChild('vscode-jsonrpc', framing);
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.listen();
  return {
    call: (method = METHOD, params = PARAMS) => connection.sendRequest(method, params),
    close: async () => {
      connection.dispose();
      await stopChild(child);
    },
  };
}

const parents = {
  raw: (framing) => rawParent(framing, false),
  'raw-coalesced': (framing) => rawParent(framing, true),
  kit: kitParent,
  'vscode-jsonrpc': vscodeParent,
};

/**
 * Measures one implementation: warm-up calls, then `config.calls` calls, 64 in flight. `aged`: a
 * full GC on both sides between the two ({@link ageBothSides}).
 */
export async function run(impl, config, framing, aged = false) {
  const parent = await parents[impl](framing);
  try {
    check(await parent.call());
    await lanes(parent.call, 64, config.warmupCalls);
    if (aged) await ageBothSides(parent.call);
    return await lanesWithCpu(parent.call, 64, config.calls);
  } finally {
    await parent.close();
  }
}
