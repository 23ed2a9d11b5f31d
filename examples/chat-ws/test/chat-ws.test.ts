import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonRpcError } from '@jsonrpc-kit/core';
import { createWebSocketServer, type JsonRpcWebSocketServer } from '@jsonrpc-kit/transport-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { firstLine } from '../../../tests/support/first-line.js';
import { restartablePort } from '../../../tests/support/restart-port.js';
import { ChatError, type ChatMessage, createChatServer } from '../src/chat.js';
import { run } from '../src/main.js';
import { connectMember, type Member } from '../src/member.js';

const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_JS = join(EXAMPLE_DIR, 'dist', 'server.js');

async function until(condition: () => boolean, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('chat server (in-process)', () => {
  let wss: JsonRpcWebSocketServer;
  let chat: ReturnType<typeof createChatServer>;
  let url: string;
  const members: Member[] = [];

  beforeAll(async () => {
    chat = createChatServer();
    wss = createWebSocketServer(chat.server, { port: 0, host: '127.0.0.1' });
    await wss.ready;
    url = `ws://127.0.0.1:${wss.port}/`;
  });
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.close()));
  });
  afterAll(async () => {
    await wss.close({ timeout: 100 });
  });

  function member(name: string, options: { acceptJoins?: boolean; inbox?: ChatMessage[] } = {}) {
    const m = connectMember({
      url,
      name,
      reconnect: { strategy: 'fixed', delay: 50, maxAttempts: 1 },
      ...(options.acceptJoins === undefined ? {} : { acceptJoins: options.acceptJoins }),
      onMessage: (message) => options.inbox?.push(message),
    });
    members.push(m);
    return m;
  }

  it('pushes a message to every member of the room and nobody else', async () => {
    const a: ChatMessage[] = [];
    const b: ChatMessage[] = [];
    const c: ChatMessage[] = [];
    const alice = member('alice', { inbox: a });
    const bob = member('bob', { inbox: b });
    const carol = member('carol', { inbox: c });
    await alice.join('r1');
    expect((await bob.join('r1')).members).toEqual(['alice', 'bob']);
    await carol.join('r2');
    expect(await alice.send('r1', 'hello')).toEqual({ delivered: 2 });
    await until(() => a.length === 1 && b.length === 1);
    expect(b[0]).toMatchObject({ room: 'r1', from: 'alice', text: 'hello' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(c).toEqual([]);
  });

  it('asks the client to confirm and refuses a declined join with 1001', async () => {
    const mallory = member('mallory', { acceptJoins: false });
    await expect(mallory.join('r3')).rejects.toSatisfy(
      (error: unknown) => error instanceof JsonRpcError && error.code === ChatError.JoinDeclined,
    );
    expect(chat.members('r3')).toEqual([]);
  });

  it('refuses sending to a room not joined (1002) and bad input (1003)', async () => {
    const dave = member('dave');
    await expect(dave.send('nowhere', 'x')).rejects.toMatchObject({ code: ChatError.NotInRoom });
    await expect(dave.join('')).rejects.toMatchObject({ code: ChatError.BadInput });
    await expect(dave.client.request('chat.join', [1, 2])).rejects.toMatchObject({
      code: ChatError.BadInput,
    });
  });

  it('removes a member whose connection closes', async () => {
    const erin = member('erin');
    const frank = member('frank');
    await erin.join('r4');
    await frank.join('r4');
    expect(chat.members('r4')).toEqual(['erin', 'frank']);
    await frank.close();
    await until(() => chat.members('r4').length === 1);
    expect(chat.members('r4')).toEqual(['erin']);
  });

  it('answers chat.* over HTTP-style handle() with an error: the chat needs a duplex peer', async () => {
    const answer = await chat.server.handle(
      '{"jsonrpc":"2.0","method":"chat.send","params":{"room":"r","text":"t"},"id":1}',
    );
    expect(JSON.parse(answer!)).toMatchObject({ id: 1, error: { code: ChatError.BadInput } });
  });
});

describe('node dist/server.js --port 0', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, [SERVER_JS, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await firstLine(child);
  });
  afterAll(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });

  it('prints its URL, chats, and exits 0 on SIGTERM', async () => {
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/);
    const inbox: ChatMessage[] = [];
    const m = connectMember({
      url,
      name: 'zoe',
      reconnect: { maxAttempts: 1 },
      onMessage: (x) => inbox.push(x),
    });
    try {
      await m.join('lobby');
      await m.send('lobby', 'ping');
      await until(() => inbox.length === 1);
      expect(inbox[0]?.text).toBe('ping');
    } finally {
      await m.close();
    }
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('main: run(log)', () => {
  it('chats, restarts the server on the same port, and the members reconnect and rejoin', async () => {
    const lines: string[] = [];
    // A port the system picks is an ephemeral one, which another socket of the suite could take
    // while the server is down: this one is below that range.
    await run((line) => lines.push(line), await restartablePort());
    const text = lines.join('\n');
    expect(text).toContain('server asks: join lobby');
    expect(text).toContain('[alice] got "hi alice" from bob');
    expect(text).toMatch(/\[alice\] connection open → reconnecting/);
    expect(text).toMatch(/\[bob\] reconnected after \d+ ms; joining lobby again/);
    expect(text).toContain('[bob] got "welcome back, bob" from alice');
  }, 20_000);
});
