import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { createClient } from '@jsonrpc-kit/client';
import { createServer } from '@jsonrpc-kit/server';
import {
  createStreamTransport,
  type SpawnedTransport,
  spawnTransport,
} from '@jsonrpc-kit/transport-stdio';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { stdioFixture } from './stdio-fixtures/fixture.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function exitOf(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', r));
}

function tracked(child: ChildProcess): ChildProcess {
  cleanups.push(async () => {
    child.kill('SIGKILL');
    await exitOf(child);
  });
  return child;
}

function tracked2(t: SpawnedTransport): SpawnedTransport {
  cleanups.push(async () => {
    t.process.kill('SIGKILL');
    await t.exit;
  });
  return t;
}

function vscodeConnection(
  readable: NodeJS.ReadableStream,
  writable: NodeJS.WritableStream,
): MessageConnection {
  const connection = createMessageConnection(
    new StreamMessageReader(readable),
    new StreamMessageWriter(writable),
  );
  connection.listen();
  cleanups.push(() => connection.dispose());
  return connection;
}

describe('vscode-jsonrpc ↔ our Content-Length transport', () => {
  it('a vscode-jsonrpc client calls our server over PassThrough pairs', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = createServer();
    server.method('add', ([a, b]: [number, number]) => a + b);
    server.method('echo', (params: unknown) => params);
    const transport = createStreamTransport(toServer, toClient, { framing: 'content-length' });
    server.connect(transport);
    cleanups.push(() => transport.close());
    const connection = vscodeConnection(toClient, toServer);
    expect(await connection.sendRequest('add', 2, 3)).toBe(5);
    const text = 'héllo wörld € 😀 中文'.repeat(500);
    expect(await connection.sendRequest('echo', { text })).toEqual({ text });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => connection.sendRequest('add', i, 1)),
    );
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await expect(connection.sendRequest('nope')).rejects.toMatchObject({ code: -32601 });
  });

  it('a vscode-jsonrpc client calls our server in a child process', async () => {
    const child = tracked(
      spawn(process.execPath, [stdioFixture('kit-server.mjs'), 'auto'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const connection = vscodeConnection(child.stdout!, child.stdin!);
    expect(await connection.sendRequest('add', 40, 2)).toBe(42);
    expect(await connection.sendRequest('echo', { é: '😀' })).toEqual({ é: '😀' });
  });

  it('our client calls a vscode-jsonrpc server in a child process', async () => {
    const transport = tracked2(
      spawnTransport(process.execPath, [stdioFixture('vscode-server.mjs')], {
        framing: 'content-length',
      }),
    );
    const client = createClient(transport);
    expect(await client.request('add', [1, 2])).toBe(3);
    const text = 'ü€😀'.repeat(10_000);
    expect(await client.request('echo', { text })).toEqual({ text });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => client.request('add', [i, i])),
    );
    expect(answers).toEqual(Array.from({ length: 100 }, (_, i) => 2 * i));
    await client.notify('bye');
    expect(await transport.exit).toEqual({ code: 0, signal: null });
  });
});

describe("the MCP SDK's stdio transports ↔ our newline transport", () => {
  it('StdioClientTransport exchanges messages with our newline-framed child server', async () => {
    for (const framing of ['newline', 'auto']) {
      const mcp = new StdioClientTransport({
        command: process.execPath,
        args: [stdioFixture('kit-server.mjs'), framing],
        stderr: 'inherit',
      });
      const received: JSONRPCMessage[] = [];
      let wake: (() => void) | undefined;
      mcp.onmessage = (message) => {
        received.push(message);
        wake?.();
      };
      await mcp.start();
      cleanups.push(() => mcp.close());
      await mcp.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { n: 42 } });
      await mcp.send({ jsonrpc: '2.0', id: 2, method: 'echo', params: { text: 'é😀\nline' } });
      await mcp.send({ jsonrpc: '2.0', id: 3, method: 'missing' });
      for (let i = 0; i < 100 && received.length < 3; i++) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      const byId = new Map(received.map((m) => [(m as { id: number }).id, m]));
      expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { n: 42 } });
      expect(byId.get(2)).toEqual({ jsonrpc: '2.0', id: 2, result: { text: 'é😀\nline' } });
      expect(byId.get(3)).toMatchObject({ id: 3, error: { code: -32601 } });
      await mcp.close();
    }
  });

  it("our client calls a child using the MCP SDK's StdioServerTransport", async () => {
    const transport = tracked2(
      spawnTransport(process.execPath, [stdioFixture('mcp-server.mjs')], { framing: 'newline' }),
    );
    const client = createClient(transport);
    expect(await client.request('echo', { text: 'é😀' })).toEqual({ echoed: { text: 'é😀' } });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.request('echo', { i })),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => ({ echoed: { i } })));
    await transport.close();
    expect((await transport.exit).code).toBe(0);
  });
});
