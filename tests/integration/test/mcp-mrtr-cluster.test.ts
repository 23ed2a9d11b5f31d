// Multi Round-Trip Requests (MCP 2026-07-28) across processes: a stateless `tools/call` whose tool
// asks the client (`ctx.elicit()`) is answered on process A with `input_required` and a sealed
// `requestState`; the retry, with the answer and that state, lands on process B and completes
// there. No Redis and no shared memory: the answers of earlier rounds travel in `requestState`,
// sealed with an HMAC key both processes were given. A state changed by one character is refused,
// and so is A's state on a process started with another key.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createMcpClient, createMcpFetch } from '@jsonrpc-kit/mcp/client';
import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundRobin } from './round-robin.js';

const nodeScript = fileURLToPath(new URL('./cluster-fixtures/mcp-mrtr-node.mjs', import.meta.url));
const V = '2026-07-28';
const KEY = 'the cluster requestState key';
const OTHER_KEY = 'a key of another cluster';
/** JSON-RPC "Invalid params": what a changed, foreign or expired `requestState` gets. */
const INVALID_PARAMS = -32602;

interface Node {
  readonly url: string;
  readonly pid: number;
}

/** Starts one server process with `key`; resolves its URL and pid. */
function startNode(name: string, key: string, children: ChildProcess[]): Promise<Node> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nodeScript, name], {
      env: { ...process.env, MRTR_KEY: key },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const timer = setTimeout(() => reject(new Error(`process ${name} did not start`)), 10_000);
    createInterface({ input: child.stdout! }).once('line', (url) => {
      clearTimeout(timer);
      resolve({ url, pid: child.pid! });
    });
    child.once('exit', (code) => reject(new Error(`process ${name} exited with ${code}`)));
  });
}

let nextId = 1;
/** One stateless 2026-07-28 request, with the headers and `_meta` the revision asks for. */
async function post(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.json();
}

const QUESTION = 'Who is there?';
const ask = (url: string, extra: Record<string, unknown> = {}) =>
  post(url, 'tools/call', { name: 'ask', arguments: { question: QUESTION }, ...extra });
const ANSWER = { who: { action: 'accept', content: { by: 'Ada' } } };

/** How often `ask` started and got its answer on a process. */
async function runs(url: string): Promise<{ started: number; answered: number }> {
  const body = await post(url, 'tools/call', { name: 'runs', arguments: {} });
  return JSON.parse(body.result.content[0].text);
}

/** The first round on `url`: checks the `input_required` result, gives its state. */
async function firstRound(url: string): Promise<string> {
  const first = await ask(url);
  expect(first.error).toBeUndefined();
  expect(first.result).toMatchObject({
    resultType: 'input_required',
    inputRequests: {
      who: { method: 'elicitation/create', params: { message: QUESTION } },
    },
    requestState: expect.any(String),
  });
  return first.result.requestState;
}

/** `state` with the character at `index` replaced by another base64url character. */
function changeOne(state: string, index: number): string {
  const changed = state[index] === 'A' ? 'B' : 'A';
  return `${state.slice(0, index)}${changed}${state.slice(index + 1)}`;
}

describe('an MRTR round trip across two processes (no shared memory, one requestState key)', () => {
  const children: ChildProcess[] = [];
  let a: Node;
  let b: Node;
  let stranger: Node;
  let proxy: Awaited<ReturnType<typeof roundRobin>>;

  beforeAll(async () => {
    [a, b, stranger] = await Promise.all([
      startNode('a', KEY, children),
      startNode('b', KEY, children),
      startNode('stranger', OTHER_KEY, children),
    ]);
    proxy = await roundRobin([a.url, b.url], 5_000);
  }, 15_000);
  afterAll(async () => {
    await proxy?.close();
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    }
  });

  it('asks on A, and the retry with the answer and the state completes on B', async () => {
    expect(a.pid).not.toBe(b.pid);
    const before = { a: await runs(a.url), b: await runs(b.url) };
    const state = await firstRound(a.url);
    // A ran the tool up to its question; B did not see the call.
    expect(await runs(a.url)).toEqual({ ...before.a, started: before.a.started + 1 });
    expect(await runs(b.url)).toEqual(before.b);

    const second = await ask(b.url, { inputResponses: ANSWER, requestState: state });
    expect(second.error).toBeUndefined();
    expect(second.result).toMatchObject({ resultType: 'complete' });
    expect(JSON.parse(second.result.content[0].text)).toEqual({
      action: 'accept',
      by: 'Ada',
      name: 'b',
      pid: b.pid,
    });
    // B ran it again from the start, its question now answered; A did not see the retry.
    expect(await runs(b.url)).toEqual({
      started: before.b.started + 1,
      answered: before.b.answered + 1,
    });
    expect(await runs(a.url)).toEqual({ ...before.a, started: before.a.started + 1 });
  });

  it('refuses a state changed by one character (in its body or its seal): the tool does not run', async () => {
    const state = await firstRound(a.url);
    const [body, seal] = state.split('.') as [string, string];
    expect(seal).toBeDefined();
    const before = await runs(b.url);
    for (const tampered of [
      changeOne(state, Math.floor(body.length / 2)),
      changeOne(state, body.length + 1 + Math.floor(seal.length / 2)),
    ]) {
      expect(tampered).not.toBe(state);
      expect(tampered).toHaveLength(state.length);
      const refused = await ask(b.url, { inputResponses: ANSWER, requestState: tampered });
      expect(refused.result).toBeUndefined();
      expect(refused.error).toMatchObject({
        code: INVALID_PARAMS,
        message: 'Invalid requestState',
      });
    }
    expect(await runs(b.url)).toEqual(before);
    // The state as it was given still works there: only the change was refused.
    const kept = await ask(b.url, { inputResponses: ANSWER, requestState: state });
    expect(JSON.parse(kept.result.content[0].text)).toMatchObject({ by: 'Ada', pid: b.pid });
  });

  it("refuses A's state on a process with another key: the key is what carries it", async () => {
    const state = await firstRound(a.url);
    const refused = await ask(stranger.url, { inputResponses: ANSWER, requestState: state });
    expect(refused.result).toBeUndefined();
    expect(refused.error).toMatchObject({ code: INVALID_PARAMS, message: 'Invalid requestState' });
    expect(await runs(stranger.url)).toEqual({ started: 0, answered: 0 });
    // That process does ask the question itself: it runs, it just cannot open A's state.
    await firstRound(stranger.url);
    expect(await runs(stranger.url)).toEqual({ started: 1, answered: 0 });
  });

  it("the kit's MCP client through a round-robin proxy: asked once, answered on the other process", async () => {
    const asked: string[] = [];
    const http = createMcpFetch();
    const mcp = createMcpClient(createStreamableHttpTransport({ url: proxy.url, fetch: http }), {
      http,
      name: 'mrtr-host',
      version: '1.0.0',
      protocolVersion: V,
      protocolVersions: [V],
      handlers: {
        elicitation: (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { by: 'the kit client' } };
        },
      },
      client: { callTimeout: 8_000 },
    });
    try {
      await mcp.connect();
      expect(mcp.protocolVersion).toBe(V);
      const before = proxy.log.length;
      const result = await mcp.callTool('ask', { question: 'Client?' });
      expect(asked).toEqual(['Client?']);
      const calls = proxy.log
        .slice(before)
        .filter((p) => p.body.includes('"tools/call"'))
        .map((p) => ({ backend: p.backend, params: JSON.parse(p.body).params }));
      expect(calls).toHaveLength(2);
      const [first, retry] = calls as [(typeof calls)[0], (typeof calls)[0]];
      expect(first.params.requestState).toBeUndefined();
      expect(retry.params).toMatchObject({
        inputResponses: { who: { action: 'accept', content: { by: 'the kit client' } } },
        requestState: expect.any(String),
      });
      // The round robin put the retry on the other process, and that one answered.
      expect(retry.backend).not.toBe(first.backend);
      const reached = [a, b][retry.backend]!;
      const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
      expect(JSON.parse(text)).toEqual({
        action: 'accept',
        by: 'the kit client',
        name: ['a', 'b'][retry.backend],
        pid: reached.pid,
      });
    } finally {
      await mcp.close();
    }
  });
});
