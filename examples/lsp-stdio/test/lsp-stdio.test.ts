import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createMemoryTransportPair,
  LSP_REQUEST_CANCELLED,
  type Transport,
} from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createLanguageServer } from '../src/language-server.js';
import { run } from '../src/main.js';

const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_JS = join(EXAMPLE_DIR, 'dist', 'server.js');

function frame(message: object): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

/** Splits Content-Length frames strictly; throws on anything else. */
function unframe(bytes: Buffer): unknown[] {
  const messages: unknown[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const headerEnd = rest.indexOf('\r\n\r\n');
    const match = /^Content-Length: (\d+)$/.exec(rest.subarray(0, headerEnd).toString('latin1'));
    if (headerEnd === -1 || !match) throw new Error(`not a frame: ${rest.toString('latin1')}`);
    const length = Number(match[1]);
    messages.push(
      JSON.parse(rest.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')),
    );
    rest = rest.subarray(headerEnd + 4 + length);
  }
  return messages;
}

describe('node dist/server.js (raw Content-Length frames)', () => {
  it('runs a session, writes only frames to stdout, and exits 0 after shutdown + exit', async () => {
    const child = spawn(process.execPath, [SERVER_JS], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const send = (message: object) => child.stdin.write(frame(message));
    send({ jsonrpc: '2.0', id: 0, method: 'textDocument/hover', params: {} });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } });
    send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    send({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: { textDocument: { uri: 'file:///a', text: 'añb TODO', version: 1, languageId: 'x' } },
    });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'textDocument/hover',
      params: { textDocument: { uri: 'file:///a' }, position: { line: 0, character: 1 } },
    });
    // Wait for the answers before shutting down: notifications are handled concurrently.
    const received = async (count: number) => {
      const deadline = Date.now() + 5_000;
      while (unframe(Buffer.concat(chunks)).length < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await received(5);
    // As LSP clients do: exit only after the answer to shutdown.
    send({ jsonrpc: '2.0', id: 3, method: 'shutdown' });
    await received(6);
    send({ jsonrpc: '2.0', method: 'exit' });
    // stdin stays open: the server must exit on its own.
    expect(await exited).toBe(0);
    clearTimeout(kill);
    child.stdin.destroy();
    const messages = unframe(Buffer.concat(chunks)) as Array<Record<string, unknown>>;
    const byKey = (m: Record<string, unknown>) => (m.method as string) ?? `id:${m.id}`;
    expect(messages.map(byKey).sort()).toEqual(
      [
        'id:0',
        'id:1',
        'window/logMessage',
        'textDocument/publishDiagnostics',
        'id:2',
        'id:3',
      ].sort(),
    );
    const find = (key: string) => messages.find((m) => byKey(m) === key);
    expect(find('id:0')).toMatchObject({ error: { code: -32002 } });
    expect(find('id:2')).toMatchObject({ result: { contents: { value: '`añb` (3 characters)' } } });
    expect(find('textDocument/publishDiagnostics')).toMatchObject({
      params: { uri: 'file:///a', diagnostics: [{ range: { start: { line: 0, character: 4 } } }] },
    });
    expect(find('id:3')).toEqual({ jsonrpc: '2.0', id: 3, result: null });
  });

  it('exits 1 when stdin ends without shutdown', async () => {
    const child = spawn(process.execPath, [SERVER_JS], { stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdin.end();
    expect(await exited).toBe(1);
    clearTimeout(kill);
  });
});

describe('createLanguageServer (in-process, memory transport)', () => {
  let ends: Transport[] = [];
  afterEach(async () => {
    await Promise.all(ends.map((t) => t.close()));
    ends = [];
  });

  async function open() {
    const server = createLanguageServer();
    const [client, serverEnd] = createMemoryTransportPair();
    const connection = server.connect(serverEnd);
    const received: Array<Record<string, unknown>> = [];
    await client.start({
      onMessage: (text) => received.push(JSON.parse(text)),
      onClose: () => {},
    });
    ends.push(client);
    const next = async (predicate: (m: Record<string, unknown>) => boolean) => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const i = received.findIndex(predicate);
        if (i !== -1) return received.splice(i, 1)[0]!;
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await client.send('{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}');
    await next((m) => m.id === 'i');
    return { client, connection, next };
  }

  it('$/cancelRequest stops example/slowCount: answered -32800 and nothing left running', async () => {
    const { client, connection, next } = await open();
    await client.send(
      '{"jsonrpc":"2.0","id":7,"method":"example/slowCount","params":{"to":10000,"delayMs":5}}',
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(connection.inFlight).toBe(1);
    await client.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}');
    expect(await next((m) => m.id === 7)).toMatchObject({ error: { code: LSP_REQUEST_CANCELLED } });
    const deadline = Date.now() + 1_000;
    while (connection.inFlight > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(connection.inFlight).toBe(0);
  });

  it('rejects bad slowCount params with -32602 and hovers null outside words', async () => {
    const { client, next } = await open();
    await client.send('{"jsonrpc":"2.0","id":1,"method":"example/slowCount","params":{"to":-1}}');
    expect(await next((m) => m.id === 1)).toMatchObject({ error: { code: -32602 } });
    await client.send(
      '{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///none"},"position":{"line":0,"character":0}}}',
    );
    expect(await next((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: null });
  });
});

describe('main: run(log)', () => {
  it('walks through the session and the server exits 0', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    const text = lines.join('\n');
    expect(text).toContain('"method":"window/logMessage"');
    expect(text).toContain('"method":"textDocument/publishDiagnostics"');
    expect(text).toContain('→ {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}');
    expect(text).toContain('"code":-32800');
    expect(text).toContain('server exited with code 0');
  });
});
