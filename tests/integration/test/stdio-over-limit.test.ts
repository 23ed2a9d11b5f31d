import { type ChildProcess, spawn } from 'node:child_process';
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
      { code: 'message-too-large', method: 'length', id: 0, notification: false },
      { code: 'message-too-large', method: 'textDocument/didOpen', notification: true },
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
