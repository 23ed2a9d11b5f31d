// Calls per second through a child echo server over stdio, 64 calls in flight:
// hand-framed raw streams vs this package (spawnTransport + createStdioTransport), both framings,
// and vscode-jsonrpc's StreamMessageReader/Writer (Content-Length) when it can be resolved.
// Run after building: npx tsc -b && node packages/transport-stdio/bench/stdio.bench.mjs [seconds] [rounds]
// Each variant runs [rounds] interleaved rounds of [seconds]; the table shows medians.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { spawnTransport } from '../dist/index.js';

const SECONDS = Number(process.argv[2] ?? 1);
const IN_FLIGHT = 64;
const child = fileURLToPath(new URL('./echo-child.mjs', import.meta.url));
const PARAMS = { text: 'héllo wörld', list: [1, 2, 3, 4, 5], nested: { a: true, b: null } };

/** Drives `send` with IN_FLIGHT calls until the time is up; `onAnswer` is wired by the caller. */
function drive(send) {
  return new Promise((resolve) => {
    let nextId = 1;
    let done = 0;
    let stopping = false;
    const started = performance.now();
    const pending = new Map();
    const fire = () => {
      const id = nextId++;
      pending.set(id, true);
      send(JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: PARAMS }));
    };
    const onAnswer = (text) => {
      const { id } = JSON.parse(text);
      if (!pending.delete(id)) throw new Error(`unexpected id ${id}`);
      done++;
      if (!stopping && performance.now() - started >= SECONDS * 1000) stopping = true;
      if (!stopping) fire();
      else if (pending.size === 0) resolve(done / ((performance.now() - started) / 1000));
    };
    queueMicrotask(() => {
      for (let i = 0; i < IN_FLIGHT; i++) fire();
    });
    drive.onAnswer = onAnswer;
  });
}

async function raw(framing) {
  const proc = spawn(process.execPath, [child, 'raw', framing], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let onAnswer;
  if (framing === 'newline') {
    let rest = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) if (line !== '') onAnswer(line);
    });
  } else {
    let buf = Buffer.alloc(0);
    proc.stdout.on('data', (chunk) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) break;
        const length = Number(/Content-Length: (\d+)/i.exec(buf.toString('latin1', 0, end))[1]);
        if (buf.length < end + 4 + length) break;
        const body = buf.toString('utf8', end + 4, end + 4 + length);
        buf = buf.subarray(end + 4 + length);
        onAnswer(body);
      }
    });
  }
  const send =
    framing === 'newline'
      ? (text) => proc.stdin.write(text + '\n')
      : (text) => proc.stdin.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  const result = drive(send);
  onAnswer = drive.onAnswer;
  const rate = await result;
  proc.stdin.end();
  await new Promise((r) => proc.once('exit', r));
  return rate;
}

async function kit(framing) {
  const transport = spawnTransport(process.execPath, [child, 'kit', framing], { framing });
  let onAnswer;
  await transport.start({ onMessage: (text) => onAnswer(text), onClose() {} });
  const result = drive((text) => void transport.send(text));
  onAnswer = drive.onAnswer;
  const rate = await result;
  await transport.close();
  return rate;
}

async function vscode() {
  let lib;
  try {
    const require = createRequire(new URL('../../../bench/package.json', import.meta.url));
    lib = require('vscode-jsonrpc/node');
  } catch {
    return undefined;
  }
  const proc = spawn(process.execPath, [child, 'vscode', 'content-length'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const reader = new lib.StreamMessageReader(proc.stdout);
  const writer = new lib.StreamMessageWriter(proc.stdin);
  let onAnswer;
  // vscode-jsonrpc hands over parsed objects: re-stringifying would be unfair, so parse-free ids.
  reader.listen((message) => onAnswer(message));
  const result = drive((text) => void writer.write(JSON.parse(text)));
  const inner = drive.onAnswer;
  onAnswer = (message) => inner(`{"id":${message.id}}`);
  const rate = await result;
  proc.stdin.end();
  await new Promise((r) => proc.once('exit', r));
  return rate;
}

const ROUNDS = Number(process.argv[3] ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const framing of ['content-length', 'newline']) {
  await raw(framing); // warm-up
  const runs = { raw: [], kit: [], vscode: [] };
  // Interleaved rounds, medians: the machine may be busy with other work.
  for (let round = 0; round < ROUNDS; round++) {
    runs.raw.push(await raw(framing));
    runs.kit.push(await kit(framing));
    if (framing === 'content-length') {
      const v = await vscode();
      if (v !== undefined) runs.vscode.push(v);
    }
  }
  const base = median(runs.raw);
  const row = (variant, xs) => ({
    framing,
    variant,
    callsPerSec: Math.round(median(xs)),
    ratio: `${(median(xs) / base).toFixed(2)}x`,
  });
  rows.push(row('raw (hand-framed)', runs.raw));
  rows.push(row('@jsonrpc-kit/transport-stdio', runs.kit));
  if (runs.vscode.length > 0) rows.push(row('vscode-jsonrpc reader/writer', runs.vscode));
}
console.table(rows);
