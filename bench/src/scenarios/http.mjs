/**
 * Scenario 3: HTTP on 127.0.0.1. The server runs in a child pinned to CPU 1; this process (the
 * load generator or the client) runs on CPU 0.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  check,
  kit,
  lanesFor,
  METHOD,
  PARAMS,
  REQUEST_TEXT,
  startServerChild,
} from '../common.mjs';
import { findWrk, parseWrk } from '../wrk.mjs';

const SERVER_FILE = fileURLToPath(new URL('../children/http-server.mjs', import.meta.url));

function cannon(url, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: REQUEST_TEXT,
        connections: 64,
        pipelining: 1,
        duration: seconds,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** wrk, one thread, 64 keep-alive connections, POSTing the request text. */
function wrkRun(wrk, url, seconds) {
  const dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-bench-'));
  const script = join(dir, 'post.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = ${JSON.stringify(REQUEST_TEXT)}\n`,
  );
  const duration = `${Math.max(1, Math.round(seconds))}s`;
  return new Promise((resolve, reject) => {
    execFile(
      wrk,
      ['-t1', '-c64', `-d${duration}`, '--latency', '-s', script, url],
      { timeout: (Math.max(1, Math.round(seconds)) + 10) * 1000 },
      (error, stdout) => (error ? reject(error) : resolve(parseWrk(stdout))),
    );
  });
}

const round = (ms) => (ms === undefined ? undefined : Math.round(ms * 1000) / 1000);

async function probe(url, body = REQUEST_TEXT) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const answer = JSON.parse(await res.text());
  check(answer.result);
}

/** Server side: wrk when installed, else autocannon; 64 keep-alive connections, fixed duration. */
export async function runServer(impl, config) {
  const server = await startServerChild(SERVER_FILE, [impl], { cpu: 1 });
  try {
    const url = `http://127.0.0.1:${server.port}/`;
    await probe(url);
    // Warm the server up with an undici loop: autocannon runs take at least about a second
    // whatever their duration, which would double the cost of every quick measurement.
    const warm = await undiciCall(url);
    await lanesFor(warm, 64, config.warmupMs, 1);
    const wrk = findWrk();
    if (wrk !== undefined) {
      const w = await wrkRun(wrk, url, config.measureMs / 1000);
      return {
        value: w.rate,
        extra: { p50: round(w.p50), p99: round(w.p99), failures: w.failures, generator: 'wrk' },
      };
    }
    const r = await cannon(url, config.measureMs / 1000);
    const failures = r.errors + r.timeouts + r.non2xx;
    return {
      value: r.requests.total / r.duration,
      extra: { p50: r.latency.p50, p99: r.latency.p99, failures },
    };
  } finally {
    await server.stop();
  }
}

async function undiciCall(url) {
  const { request } = await import('undici');
  return async () => {
    const { body } = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: REQUEST_TEXT,
    });
    return JSON.parse(await body.text()).result;
  };
}

async function fetchCall(url) {
  return async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: REQUEST_TEXT,
    });
    return JSON.parse(await res.text()).result;
  };
}

async function kitCall(url) {
  const { createClient } = await kit('@jsonrpc-kit/client', 'createClient');
  const { createHttpTransport } = await kit('@jsonrpc-kit/transport-http', 'createHttpTransport');
  const client = createClient(createHttpTransport({ url }), {});
  return () => client.request(METHOD, PARAMS);
}

const clients = { undici: undiciCall, fetch: fetchCall, kit: kitCall };

/** Client side: 64 calls in flight against the raw server, fixed duration. */
export async function runClient(impl, config) {
  const make = clients[impl];
  const server = await startServerChild(SERVER_FILE, ['raw'], { cpu: 1 });
  try {
    const call = await make(`http://127.0.0.1:${server.port}/`);
    check(await call());
    await lanesFor(call, 64, config.warmupMs, 1);
    return { value: await lanesFor(call, 64, config.measureMs, 1) };
  } finally {
    await server.stop();
  }
}
