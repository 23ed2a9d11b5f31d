import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { createServer } from '@jsonrpc-kit/server';
import { createStreamTransport } from '@jsonrpc-kit/transport-stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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

const big = 'x'.repeat(1_500_000);

/** Fails after `ms` instead of waiting forever for an answer that never comes. */
function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A vscode-jsonrpc connection to the limit server, and a count of the messages it wrote. */
function lspClient(...args: string[]): { connection: MessageConnection; written: () => number } {
  const child: ChildProcess = spawn(
    process.execPath,
    [stdioFixture('limit-server.mjs'), 'content-length', ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  cleanups.push(async () => {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((r) => child.once('exit', r));
    }
  });
  let written = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    written += chunk.toString('latin1').split('Content-Length:').length - 1;
  });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  connection.listen();
  cleanups.push(() => connection.dispose());
  return { connection, written: () => written };
}

describe('an over-limit message over stdio gets an answer its sender can match', () => {
  it('vscode-jsonrpc: a 1.5 MB request rejects with -32004; a 1.5 MB didOpen gets no answer', async () => {
    const { connection, written } = lspClient();
    await expect(within(connection.sendRequest('length', big))).rejects.toMatchObject({
      code: -32004,
    });
    await connection.sendNotification('textDocument/didOpen', { textDocument: { text: big } });
    expect(await connection.sendRequest('length', 'ok')).toBe(6);
    const reported = await connection.sendRequest('reported');
    expect(reported).toEqual([
      {
        code: 'message-too-large',
        kind: 'message-too-large',
        level: 'warn',
        method: 'length',
        id: 0,
        notification: false,
      },
      {
        code: 'message-too-large',
        kind: 'message-too-large',
        level: 'warn',
        method: 'textDocument/didOpen',
        notification: true,
      },
    ]);
    // Answers to the three requests, and nothing for the notification.
    expect(written()).toBe(3);
  });

  it('vscode-jsonrpc: with no limit set, stdio takes multi-MB documents', async () => {
    const { connection } = lspClient('default');
    expect(await connection.sendRequest('length', big)).toBe(big.length + 4);
  });

  it('MCP SDK client: a 1.5 MB tool call rejects with -32004 instead of timing out', async () => {
    const client = new Client({ name: 'test', version: '0.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [stdioFixture('limit-server.mjs'), 'newline'],
      stderr: 'inherit',
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    await expect(
      client.callTool({ name: 'echo', arguments: { text: big } }, undefined, { timeout: 5000 }),
    ).rejects.toMatchObject({ code: -32004 });
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'abc' } });
    expect(ok.content).toEqual([{ type: 'text', text: '3' }]);
  });
});

describe('an over-limit message over TCP (stream transport), on raw bytes', () => {
  it('answers a request with its own id, a notification not at all, and keeps serving', async () => {
    const reported: unknown[] = [];
    const rpc = createServer({ maxMessageBytes: 1024, onError: (_, info) => reported.push(info) });
    rpc.method('ping', () => 'pong');
    const tcp = createTcpServer((socket) => {
      rpc.connect(createStreamTransport(socket, socket, { framing: 'content-length' }));
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => tcp.close(resolve)));
    const port = (tcp.address() as { port: number }).port;
    const socket: Socket = connect(port, '127.0.0.1');
    cleanups.push(() => socket.destroy());
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const frame = (text: string) => `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    const pad = 'x'.repeat(4000);
    socket.write(frame(`{"jsonrpc":"2.0","method":"ping","params":["${pad}"],"id":"big"}`));
    socket.write(frame(`{"jsonrpc":"2.0","method":"note","params":["${pad}"]}`));
    socket.write(frame('{"jsonrpc":"2.0","id":2,"method":"ping"}'));
    const answer1 =
      '{"jsonrpc":"2.0","id":"big","error":{"code":-32004,"message":"Request too large","data":{"maxRequestBytes":1024}}}';
    const answer2 = '{"jsonrpc":"2.0","id":2,"result":"pong"}';
    const expected = frame(answer1) + frame(answer2);
    for (let i = 0; i < 200 && received.length < expected.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(received).toBe(expected);
    expect(reported).toEqual([
      { kind: 'message-too-large', level: 'warn', method: 'ping', id: 'big', notification: false },
      { kind: 'message-too-large', level: 'warn', method: 'note', notification: true },
    ]);
  });
});
