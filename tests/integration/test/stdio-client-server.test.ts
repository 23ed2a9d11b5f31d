import {
  connect,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import {
  createStreamTransport,
  ProcessExitError,
  type SpawnedTransport,
  spawnTransport,
} from '@jsonrpc-kit/transport-stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioFixture } from './stdio-fixtures/fixture.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function spawnServer(
  framing: 'content-length' | 'newline',
  serverFraming: string = framing,
): SpawnedTransport {
  const t = spawnTransport(process.execPath, [stdioFixture('kit-server.mjs'), serverFraming], {
    framing,
  });
  cleanups.push(async () => {
    t.process.kill('SIGKILL');
    await t.exit;
  });
  return t;
}

describe('client × server over a child process', () => {
  for (const framing of ['content-length', 'newline'] as const) {
    for (const serverFraming of [framing, 'auto']) {
      it(`${framing} (server: ${serverFraming})`, async () => {
        const transport = spawnServer(framing, serverFraming);
        const client = createClient(transport);
        expect(await client.request('add', [1, 2])).toBe(3);
        expect(await client.request('echo', { s: 'é€😀' })).toEqual({ s: 'é€😀' });
        const results = await client.batch((b) => [
          b.request('add', [1, 1]),
          b.request('echo', ['x']),
        ]);
        expect(results).toEqual([
          { ok: true, value: 2 },
          { ok: true, value: ['x'] },
        ]);
        const many = await Promise.all(
          Array.from({ length: 500 }, (_, i) => client.request('add', [i, 0])),
        );
        expect(many).toEqual(Array.from({ length: 500 }, (_, i) => i));
        await expect(client.request('missing')).rejects.toMatchObject({ code: -32601 });
        await transport.close();
        expect(await transport.exit).toEqual({ code: 0, signal: null });
      });
    }
  }

  it('a child crash mid-call rejects every pending call', async () => {
    const transport = spawnServer('newline');
    const client = createClient(transport);
    expect(await client.request('add', [1, 2])).toBe(3);
    const pending = [client.request('sleep', [10_000]), client.request('sleep', [10_000])];
    const crash = client.request('crash', [9]);
    for (const p of [...pending, crash]) {
      const error = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect((error as Error).cause).toBeInstanceOf(ProcessExitError);
      expect((error as Error).cause).toMatchObject({ exitCode: 9 });
    }
    await expect(client.request('add', [1, 2])).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('client × server over TCP', () => {
  let netServer: NetServer | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    if (netServer) await new Promise((r) => netServer!.close(r));
    netServer = undefined;
  });

  for (const framing of ['content-length', 'newline'] as const) {
    it(`serves several clients with ${framing} framing`, async () => {
      const server = createServer();
      server.method('add', ([a, b]: [number, number]) => a + b);
      netServer = createNetServer((socket) => {
        sockets.push(socket);
        server.connect(createStreamTransport(socket, socket, { framing: 'auto' }));
      });
      await new Promise<void>((r) => netServer!.listen(0, '127.0.0.1', r));
      const { port } = netServer.address() as { port: number };
      const clients = await Promise.all(
        [0, 1, 2].map(async () => {
          const socket = connect(port, '127.0.0.1');
          sockets.push(socket);
          await new Promise((r) => socket.once('connect', r));
          return createClient(createStreamTransport(socket, socket, { framing }));
        }),
      );
      const answers = await Promise.all(clients.map((c, i) => c.request('add', [i, 10])));
      expect(answers).toEqual([10, 11, 12]);
      await Promise.all(clients.map((c) => c.close()));
    });
  }
});
