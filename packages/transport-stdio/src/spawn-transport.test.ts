import { spawn } from 'node:child_process';
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinsLoadedBy, inFreshProcess } from '../../../tests/support/fresh-process.js';
import { call, fixture, type Recorder, recorder } from '../test/helpers.js';
import { ProcessExitError } from './errors.js';
import { DEFAULT_RESPAWN } from './respawn.js';
import {
  type SpawnedTransport,
  type SpawnTransportOptions,
  spawnTransport,
} from './spawn-transport.js';

const open: SpawnedTransport[] = [];
function spawnNode(args: string[], options: SpawnTransportOptions = {}): SpawnedTransport {
  const t = spawnTransport(process.execPath, args, { stderr: 'ignore', ...options });
  open.push(t);
  return t;
}

afterEach(async () => {
  for (const t of open.splice(0)) {
    t.process.kill('SIGKILL');
    // close() resolves once the (last) child exited, and stops a respawning transport.
    await t.close();
  }
});

describe('spawnTransport', () => {
  for (const framing of ['content-length', 'newline'] as const) {
    describe(`with ${framing} framing`, () => {
      for (const serverFraming of [framing, 'auto'] as const) {
        it(`talks to a child server (${serverFraming} on its side)`, async () => {
          const t = spawnNode([fixture('echo-server.mjs'), serverFraming], { framing });
          const rec = recorder();
          await t.start(rec);
          expect(await call(t, rec, 1, 'echo', ['héllo €😀', { n: 1 }])).toEqual({
            jsonrpc: '2.0',
            id: 1,
            result: ['héllo €😀', { n: 1 }],
          });
          // Many in flight, in one turn: all answered.
          const n = 300;
          const sends = [];
          for (let i = 0; i < n; i++) {
            sends.push(
              t.send(JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'echo', params: [i] })),
            );
          }
          await Promise.all(sends);
          await rec.next((m) => (JSON.parse(m) as { id: number }).id === 100 + n - 1);
          const ids = rec.messages
            .map((m) => (JSON.parse(m) as { id: number }).id)
            .filter((id) => id >= 100);
          expect(ids).toEqual(Array.from({ length: n }, (_, i) => 100 + i));
          // A big answer crosses many chunks.
          const big = await call(t, rec, 2, 'big', [300_000]);
          expect((big.result as string).length).toBe(300_000);
          await t.close();
          expect(rec.closes).toEqual([undefined]);
          expect(await t.exit).toEqual({ code: 0, signal: null });
          expect(rec.errors).toEqual([]);
        });
      }
    });
  }

  it('closes with a ProcessExitError carrying the code when the child crashes mid-call', async () => {
    const t = spawnNode([fixture('echo-server.mjs'), 'newline'], { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    await t.send('{"jsonrpc":"2.0","id":1,"method":"slow","params":[5000]}');
    await t.send('{"jsonrpc":"2.0","id":2,"method":"crash","params":[7]}');
    const error = await rec.closed();
    expect(error).toBeInstanceOf(ProcessExitError);
    expect(error).toMatchObject({ code: 'TRANSPORT_ERROR', exitCode: 7, signal: null });
    expect(error?.message).toContain('code 7');
    expect(rec.messages).toEqual([]);
    await expect(t.send('{"jsonrpc":"2.0","id":3,"method":"echo"}')).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
    expect(await t.exit).toEqual({ code: 7, signal: null });
    await t.close();
    expect(rec.closes.length).toBe(1);
  });

  it('reports the signal when the child is killed', async () => {
    const t = spawnNode([fixture('echo-server.mjs')], { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    expect((await call(t, rec, 1, 'echo', [1])).result).toEqual([1]);
    t.process.kill('SIGKILL');
    const error = await rec.closed();
    expect(error).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('delivers what the child wrote before exiting, then closes', async () => {
    const t = spawnNode([fixture('echo-server.mjs'), 'content-length'], {
      framing: 'content-length',
    });
    const rec = recorder();
    await t.start(rec);
    await t.send('{"jsonrpc":"2.0","id":1,"method":"answer-and-exit","params":[0]}');
    const error = await rec.closed();
    expect(rec.messages).toEqual(['{"jsonrpc":"2.0","id":1,"result":"bye"}']);
    expect(error).toMatchObject({ exitCode: 0, signal: null });
  });

  it('closes with a ProcessExitError when the command cannot start', async () => {
    const t = spawnTransport('/nonexistent/command-that-does-not-exist', [], {
      framing: 'newline',
    });
    const rec = recorder();
    await t.start(rec);
    const error = await rec.closed();
    expect(error).toBeInstanceOf(ProcessExitError);
    expect(error).toMatchObject({ exitCode: null, signal: null });
    expect(error?.message).toContain('could not start');
    expect(await t.exit).toEqual({ code: null, signal: null });
    await expect(t.send('[]')).rejects.toBeInstanceOf(ConnectionClosedError);
    await t.close();
  });

  it('passes env and cwd, and routes stderr to a function', async () => {
    const chunks: string[] = [];
    const cwd = fixture('.');
    const t = spawnNode([fixture('echo-server.mjs')], {
      framing: 'newline',
      env: { ...process.env, ECHO_SERVER_VALUE: 'from-parent' },
      cwd,
      stderr: (chunk) => chunks.push(chunk.toString()),
    });
    const rec = recorder();
    await t.start(rec);
    expect((await call(t, rec, 1, 'env')).result).toEqual({
      value: 'from-parent',
      cwd: cwd.replace(/\/$/, ''),
    });
    expect((await call(t, rec, 2, 'stderr', ['to stderr'])).result).toBe(true);
    for (let i = 0; i < 100 && chunks.join('') !== 'to stderr'; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(chunks.join('')).toBe('to stderr');
  });

  it("exposes stderr with 'pipe'", async () => {
    const t = spawnNode([fixture('echo-server.mjs')], { framing: 'newline', stderr: 'pipe' });
    expect(t.process.stderr).not.toBeNull();
    const rec = recorder();
    await t.start(rec);
    const got = new Promise<string>((resolve) =>
      t.process.stderr!.once('data', (c) => resolve(String(c))),
    );
    await call(t, rec, 1, 'stderr', ['piped']);
    expect(await got).toBe('piped');
  });

  it('lets the child keep serving after a bad frame', async () => {
    const t = spawnNode([fixture('echo-server.mjs'), 'newline'], { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    await t.send('this is not json');
    expect(JSON.parse(await rec.next())).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await call(t, rec, 1, 'echo', ['still here'])).result).toEqual(['still here']);
  });

  it('close ends a child that ignores the end of stdin with SIGTERM', async () => {
    const t = spawnNode([fixture('stubborn.mjs')], { framing: 'newline', killTimeout: 100 });
    const rec = recorder();
    await t.start(rec);
    await rec.next();
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await t.exit).toEqual({ code: null, signal: 'SIGTERM' });
    expect(rec.closes).toEqual([undefined]);
  });

  it('close ends a child that ignores SIGTERM too with SIGKILL', async () => {
    const t = spawnNode([fixture('stubborn.mjs'), 'ignore-sigterm'], {
      framing: 'newline',
      killTimeout: 100,
    });
    const rec = recorder();
    await t.start(rec);
    await rec.next();
    await t.close('done');
    expect(await t.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(rec.closes.length).toBe(1);
    expect(rec.closes[0]?.message).toContain('done');
  });

  it('a child that closes its own transport can still write to stdout and exits', async () => {
    const t = spawnNode([fixture('echo-server.mjs'), 'newline'], { framing: 'newline' });
    const rec = recorder();
    await t.start(rec);
    expect((await call(t, rec, 1, 'close-transport')).result).toBe('closing');
    const error = await rec.closed();
    expect(rec.messages).toContain('{"jsonrpc":"2.0","method":"after-close"}');
    // It exited on its own: reading stopped and nothing else held it.
    expect(error).toMatchObject({ exitCode: 0, signal: null });
  });

  it('a child that closes its transport exits even while its parent keeps stdin open', async () => {
    const child = spawn(process.execPath, [fixture('close-on-message.mjs')], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      child.stdin.write('{"jsonrpc":"2.0","method":"bye"}\n');
      const code = await new Promise<number | null | 'alive'>((resolve) => {
        const timer = setTimeout(() => resolve('alive'), 3_000);
        child.on('exit', (exitCode) => {
          clearTimeout(timer);
          resolve(exitCode);
        });
      });
      expect(code).toBe(0);
    } finally {
      child.kill();
      child.stdin.destroy();
    }
  });

  it('buffers what the child sends before start()', async () => {
    const t = spawnNode([fixture('stubborn.mjs')], { framing: 'newline', killTimeout: 50 });
    await new Promise((r) => setTimeout(r, 300));
    const rec = recorder();
    await t.start(rec);
    expect(await rec.next()).toBe('{"jsonrpc":"2.0","method":"ready"}');
    await expect(t.start(recorder())).rejects.toThrow('already started');
  });
});

type Owner = Recorder & { disconnects: (Error | undefined)[]; reconnects: number };

/** A recorder that also counts disconnects and reconnects. */
function owner(): Owner {
  const rec = recorder() as Owner;
  rec.disconnects = [];
  rec.reconnects = 0;
  rec.onDisconnect = (error) => {
    rec.disconnects.push(error);
  };
  rec.onReconnect = () => {
    rec.reconnects++;
  };
  return rec;
}

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!condition()) throw new Error(`Timed out waiting for ${what}`);
}

describe('spawnTransport with respawn', () => {
  it('replaces a child killed by SIGKILL; a message sent in between goes to the new child', async () => {
    const pids: number[] = [];
    const t = spawnNode([fixture('echo-server.mjs'), 'newline'], {
      framing: 'newline',
      respawn: { delay: 50 },
      onRespawn: (child) => pids.push(child.pid ?? -1),
    });
    const rec = owner();
    await t.start(rec);
    await t.send('{"jsonrpc":"2.0","id":1,"method":"echo","params":["one"]}');
    expect(await rec.next()).toBe('{"jsonrpc":"2.0","id":1,"result":["one"]}');
    const first = t.process;
    first.kill('SIGKILL');
    await until(() => rec.disconnects.length === 1, 'onDisconnect');
    expect(rec.disconnects[0]).toBeInstanceOf(ProcessExitError);
    expect(rec.disconnects[0]).toMatchObject({ signal: 'SIGKILL', code: 'TRANSPORT_ERROR' });
    expect(rec.reconnects).toBe(0);
    // No child runs now: this waits for the next one.
    const sent = t.send('{"jsonrpc":"2.0","id":2,"method":"echo","params":["two"]}');
    expect(await rec.next()).toBe('{"jsonrpc":"2.0","id":2,"result":["two"]}');
    await sent;
    expect(rec.reconnects).toBe(1);
    expect(t.process).not.toBe(first);
    expect(pids).toEqual([t.process.pid]);
    expect(rec.closes).toEqual([]);
    await t.close();
    expect(rec.closes).toEqual([undefined]);
    expect(await t.exit).toEqual({ code: 0, signal: null });
  });

  it('closes with the last exit after maxAttempts children in a row died without a word', async () => {
    const t = spawnNode(['-e', 'process.exit(3)'], {
      respawn: { delay: 1, maxAttempts: 2 },
    });
    const rec = owner();
    await t.start(rec);
    const error = await rec.closed();
    expect(error).toBeInstanceOf(ProcessExitError);
    expect(error).toMatchObject({ exitCode: 3 });
    expect(rec.disconnects).toHaveLength(2);
    expect(rec.reconnects).toBe(2);
    expect(await t.exit).toEqual({ code: 3, signal: null });
    await expect(t.send('{}')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('a command that cannot start closes at once, without respawning', async () => {
    const t = spawnTransport('./no-such-command-here', [], { respawn: true });
    open.push(t);
    const rec = owner();
    await t.start(rec);
    expect(await rec.closed()).toBeInstanceOf(ProcessExitError);
    expect(rec.disconnects).toEqual([]);
    expect(await t.exit).toEqual({ code: null, signal: null });
  });

  it('close() between two children stops respawning and fails what waited', async () => {
    const t = spawnNode([fixture('echo-server.mjs'), 'newline'], {
      framing: 'newline',
      respawn: { delay: 60_000 },
    });
    const rec = owner();
    await t.start(rec);
    const first = t.process;
    first.kill('SIGKILL');
    await until(() => rec.disconnects.length === 1, 'onDisconnect');
    const waiting = t.send('{"jsonrpc":"2.0","id":1,"method":"echo"}');
    await t.close();
    await expect(waiting).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(rec.closes).toEqual([undefined]);
    expect(await t.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(t.process).toBe(first);
    expect(rec.reconnects).toBe(0);
  });

  it('sends beyond maxQueue while no child runs reject', async () => {
    const t = spawnNode([fixture('echo-server.mjs'), 'newline'], {
      framing: 'newline',
      respawn: { delay: 60_000, maxQueue: 1 },
    });
    const rec = owner();
    await t.start(rec);
    t.process.kill('SIGKILL');
    await until(() => rec.disconnects.length === 1, 'onDisconnect');
    const queued = t.send('{"jsonrpc":"2.0","method":"a"}');
    await expect(t.send('{"jsonrpc":"2.0","method":"b"}')).rejects.toThrow(/send queue is full/);
    await t.close();
    await expect(queued).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('refuses options out of range', () => {
    expect(() => spawnTransport(process.execPath, [], { respawn: { delay: -1 } })).toThrow(
      RangeError,
    );
    expect(DEFAULT_RESPAWN).toEqual({
      strategy: 'exponential',
      delay: 100,
      maxDelay: 5000,
      jitter: 0,
      maxAttempts: 5,
      maxQueue: 1000,
    });
  });
});

describe('start-up cost', () => {
  it('loads node:child_process only when a transport spawns', async () => {
    // Counting work: the modules Node loaded, in a fresh process that imports the built package.
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      const before = process.moduleLoadList.includes('NativeModule child_process');
      const stdio = await import(${JSON.stringify(entry)});
      const afterImport = process.moduleLoadList.includes('NativeModule child_process');
      const t = stdio.spawnTransport(process.execPath, ['-e', ''], { stderr: 'ignore' });
      const afterSpawn = process.moduleLoadList.includes('NativeModule child_process');
      await t.close();
      console.log(JSON.stringify([before, afterImport, afterSpawn]));
    `;
    expect(await inFreshProcess(script)).toEqual([false, false, true]);
  }, 15_000);

  it('loads no Node built-in module when imported', async () => {
    // An ES import of a built-in would make its ES module, which reads every export: importing
    // `node:buffer` so loaded `internal/file` (for `File`), which a stdio server never uses.
    // Core first (it imports no built-in): the loader's own modules load with the first import.
    const core = new URL('../../core/dist/index.js', import.meta.url).href;
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const setup = `await import(${JSON.stringify(core)});`;
    expect(await builtinsLoadedBy(setup, `await import(${JSON.stringify(entry)});`)).toEqual([]);
  }, 15_000);
});
