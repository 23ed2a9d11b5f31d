import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, type Recorder, recorder } from '../test/helpers.js';
import { ProcessExitError } from './errors.js';
import { DEFAULT_RESPAWN } from './respawn.js';
import {
  type SpawnedTransport,
  type SpawnTransportOptions,
  spawnTransport,
} from './spawn-transport.js';

const open: SpawnedTransport[] = [];
function spawnNode(args: string[], options: SpawnTransportOptions): SpawnedTransport {
  const t = spawnTransport(process.execPath, args, { stderr: 'ignore', ...options });
  open.push(t);
  return t;
}

afterEach(async () => {
  for (const t of open.splice(0)) {
    t.process.kill('SIGKILL');
    await t.close();
  }
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
    expect(DEFAULT_RESPAWN).toEqual({ delay: 100, maxDelay: 5000, maxAttempts: 5, maxQueue: 1000 });
  });
});
