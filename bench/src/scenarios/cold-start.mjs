/**
 * Scenario 11: cold start. Each start is a fresh server child (pinned to CPU 1) timed from
 * `spawn` to the first complete answer; the value is the median over `config.starts` starts.
 * Each implementation has its own child file that imports its library statically, as an
 * application does, with nothing else in it. The child reports `readyMs`: `process.uptime()` when
 * its own code starts to run, its imports loaded; beside raw's, the difference is the import
 * time.
 *
 * `kit (app bundled)` runs the same kit child bundled into one file first (esbuild, as a
 * spawn-per-session LSP or MCP server is often shipped): no package resolution at start and only
 * the code the server uses, so the difference from `kit` is what loading the packages costs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { kit, nodeCommand } from '../common.mjs';
import { median } from '../harness.mjs';

/** The implementation that runs the kit child bundled into one file. */
const BUNDLED = 'kit (app bundled)';

/** The child file of `impl` for `kind` (`cold-stdio`, `cold-http`). */
const childFile = (kind, impl) =>
  fileURLToPath(
    new URL(`../children/${kind}/${impl === BUNDLED ? 'kit' : impl}.mjs`, import.meta.url),
  );

/** `kind`'s bundled kit child, made once per process in a temporary folder removed at exit. */
const bundles = new Map();
async function bundledChild(kind) {
  if (!bundles.has(kind)) {
    // esbuild is a development dependency of the repository's root.
    const root = fileURLToPath(new URL('../../../package.json', import.meta.url));
    const { build } = await import(pathToFileURL(createRequire(root).resolve('esbuild')).href);
    const dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-cold-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, `${kind}.mjs`);
    await build({
      entryPoints: [childFile(kind, 'kit')],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    bundles.set(kind, outfile);
  }
  return bundles.get(kind);
}

/** What each stdio implementation is sent, and how its answer is read off its stdout. */
const STDIO = {
  raw: { method: 'add', framing: 'newline' },
  kit: { method: 'add', framing: 'newline' },
  'vscode-jsonrpc': { method: 'add', framing: 'content-length' },
  'mcp-sdk': { method: 'ping', framing: 'newline' },
  'kit-mcp': { method: 'ping', framing: 'newline' },
};

function frame(text, framing) {
  return framing === 'newline'
    ? `${text}\n`
    : `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

/** The first whole message in `buffer`, or undefined. */
function firstMessage(buffer, framing) {
  if (framing === 'newline') {
    const nl = buffer.indexOf('\n');
    return nl === -1 ? undefined : buffer.slice(0, nl);
  }
  const end = buffer.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const length = Number(/Content-Length: *(\d+)/i.exec(buffer.slice(0, end))?.[1]);
  const body = buffer.slice(end + 4);
  return Buffer.byteLength(body) >= length ? body : undefined;
}

function checkAnswer(text, method) {
  const answer = JSON.parse(text);
  const ok =
    answer.id === 1 && (method === 'add' ? answer.result === 3 : answer.result !== undefined);
  if (!ok) throw new Error(`wrong answer: ${text}`);
}

/** Starts one stdio child, sends one request at once; resolves `{ ms, readyMs }`. */
function startStdio(file, impl) {
  const { method, framing } = STDIO[impl === BUNDLED ? 'kit' : impl];
  const [cmd, args] = nodeCommand(file, [], 1);
  const began = process.hrtime.bigint();
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const params = method === 'add' ? { a: 1, b: 2 } : undefined;
  child.stdin.write(frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), framing));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let ms;
    const timer = setTimeout(() => finish(new Error('no answer within 10 s')), 10_000);
    const finish = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      if (ms !== undefined) return;
      out += chunk;
      const text = firstMessage(out, framing);
      if (text === undefined) return;
      ms = Number(process.hrtime.bigint() - began) / 1e6;
      try {
        checkAnswer(text, method);
      } catch (error) {
        finish(error);
        return;
      }
      child.stdin.end();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk));
    child.once('exit', () => {
      clearTimeout(timer);
      if (ms === undefined)
        return reject(new Error(`child exited: ${err.trim().split('\n').at(-1)}`));
      resolve({ ms, readyMs: Number(/^ready ([\d.]+)/m.exec(err)?.[1]) });
    });
  });
}

/** Starts one HTTP child, POSTs one request as soon as it reports its port. */
function startHttp(file) {
  const [cmd, args] = nodeCommand(file, [], 1);
  const began = process.hrtime.bigint();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let line = '';
    let err = '';
    const timer = setTimeout(() => done(new Error('no answer within 10 s')), 10_000);
    const done = (error, value) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(value);
    };
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => done(new Error(`child exited with ${code}: ${err.trim()}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      line += chunk;
      if (!line.includes('\n')) return;
      const { port, readyMs } = JSON.parse(line);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'add', params: { a: 1, b: 2 } });
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c) => (text += c));
          res.on('end', () => {
            const ms = Number(process.hrtime.bigint() - began) / 1e6;
            try {
              checkAnswer(text, 'add');
              done(undefined, { ms, readyMs });
            } catch (error) {
              done(error);
            }
          });
        },
      );
      req.on('error', done);
      req.end(body);
    });
  });
}

async function measure(start, kind, impl, config) {
  if (impl === 'kit' || impl === BUNDLED) {
    const pkg = kind === 'cold-stdio' ? 'transport-stdio' : 'transport-http';
    await kit(
      `@jsonrpc-kit/${pkg}`,
      kind === 'cold-stdio' ? 'createStdioTransport' : 'createHttpHandler',
    );
  }
  if (impl === 'kit-mcp') await kit('@jsonrpc-kit/mcp', 'createMcpServer');
  const file = impl === BUNDLED ? await bundledChild(kind) : childFile(kind, impl);
  const runs = [];
  // The first start warms the file system cache; it is not counted.
  await start(file, impl);
  for (let i = 0; i < config.starts; i++) runs.push(await start(file, impl));
  return {
    value: median(runs.map((r) => r.ms)),
    extra: { readyMs: median(runs.map((r) => r.readyMs)) },
  };
}

/** stdio: ms from spawn to the first answer. */
export async function runStdio(impl, config) {
  return measure(startStdio, 'cold-stdio', impl, config);
}

/** HTTP: ms from spawn to the first answer (listening, then one POST). */
export async function runHttp(impl, config) {
  return measure(startHttp, 'cold-http', impl, config);
}
