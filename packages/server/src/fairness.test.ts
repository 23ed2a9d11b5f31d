import type { TransportContext } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { defaultClientKey } from './defaults.js';
import { createServer } from './server.js';

const req = (method: string, params: unknown, id: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const batchOf = (n: number, method: string, params: unknown = []): string =>
  `[${Array.from({ length: n }, (_, i) => req(method, params, i)).join(',')}]`;
const from = (remoteAddress: string): TransportContext => ({ kind: 'http', remoteAddress });

/** Lets pending promise callbacks and immediates run, a bounded number of turns. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** A server whose `slow` calls wait for the test to release them, one by one or all at once. */
function gatedServer(options: Parameters<typeof createServer>[0]) {
  const server = createServer(options);
  const gates: Array<() => void> = [];
  const started: string[] = [];
  server.method('slow', async (params: [string]) => {
    started.push(params[0]);
    await new Promise<void>((resolve) => gates.push(resolve));
    return params[0];
  });
  server.method('fast', () => 'fast');
  return {
    server,
    started,
    releaseOne: () => gates.shift()?.(),
    releaseAll: () => {
      for (const gate of gates.splice(0)) gate();
    },
  };
}

describe('fair admission across handle() clients', () => {
  it('admits another client at once while one client floods slow batches', async () => {
    // The defaults: 64 running; one client may hold 48 of them.
    const { server, started, releaseAll } = gatedServer({});
    const flood = Array.from({ length: 11 }, () =>
      server.handle(batchOf(100, 'slow', ['a']), from('10.0.0.1')),
    );
    await turns();
    expect(started.length).toBe(48);
    const order: string[] = [];
    const fast = server.handle(req('fast', [], 1), from('10.0.0.2')).then((answer) => {
      order.push('b');
      return answer;
    });
    void Promise.all(flood).then(() => order.push('a'));
    await turns();
    // Not one of A's calls has finished, and B was answered.
    expect(order).toEqual(['b']);
    expect(await fast).toBe('{"jsonrpc":"2.0","id":1,"result":"fast"}');
    releaseAll();
    for (let i = 0; i < 200 && order.length < 2; i++) {
      await turns(1);
      releaseAll();
    }
    const answers = await Promise.all(flood);
    expect(answers.every((a) => JSON.parse(a!).length === 100)).toBe(true);
  });

  it('gives freed slots to waiting clients in turn, not first come first served', async () => {
    const { server, started, releaseOne, releaseAll } = gatedServer({
      maxConcurrency: 2,
      maxConcurrencyPerClient: 2,
    });
    const a = Array.from({ length: 10 }, (_, i) =>
      server.handle(req('slow', [`a${i}`], i), from('10.0.0.1')),
    );
    await turns();
    const b = Array.from({ length: 3 }, (_, i) =>
      server.handle(req('slow', [`b${i}`], i), from('10.0.0.2')),
    );
    await turns();
    expect(started).toEqual(['a0', 'a1']);
    for (let i = 0; i < 6; i++) {
      releaseOne();
      await turns();
    }
    // A queued first, so it has the first turn; then the clients alternate.
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0', 'a3', 'b1', 'a4', 'b2']);
    for (let i = 0; i < 50 && started.length < 13; i++) {
      releaseAll();
      await turns(2);
    }
    releaseAll();
    await Promise.all([...a, ...b]);
  });

  it('answers -32002 to a client past its own queue while others still get in', async () => {
    const { server, releaseAll } = gatedServer({
      maxConcurrency: 2,
      maxQueue: 100,
      maxConcurrencyPerClient: 1,
      maxQueuePerClient: 2,
    });
    const a = Array.from({ length: 4 }, (_, i) =>
      server.handle(req('slow', ['a'], i), from('10.0.0.1')),
    );
    await turns();
    // One running, two waiting, the fourth refused.
    expect(JSON.parse((await a[3])!).error.code).toBe(-32002);
    const b = server.handle(req('slow', ['b'], 9), from('10.0.0.2'));
    await turns();
    releaseAll();
    expect(JSON.parse((await b)!).result).toBe('b');
    for (let i = 0; i < 20; i++) {
      releaseAll();
      await turns(2);
    }
    expect((await Promise.all(a.slice(0, 3))).every((t) => JSON.parse(t!).result === 'a')).toBe(
      true,
    );
  });

  it('keys on the remote address by default, takes a clientKey function, and can be turned off', async () => {
    expect(defaultClientKey(from('1.2.3.4'))).toBe('1.2.3.4');
    const byHeader = gatedServer({
      maxConcurrency: 2,
      maxConcurrencyPerClient: 1,
      clientKey: (ctx) => ctx.headers?.['x-client'] as string | undefined,
    });
    const same = (client: string): TransportContext => ({
      remoteAddress: '10.0.0.1',
      headers: { 'x-client': client },
    });
    const a = [
      byHeader.server.handle(req('slow', ['a0'], 0), same('a')),
      byHeader.server.handle(req('slow', ['a1'], 1), same('a')),
    ];
    const b = byHeader.server.handle(req('slow', ['b0'], 2), same('b'));
    await turns();
    expect(byHeader.started).toEqual(['a0', 'b0']);
    byHeader.releaseAll();
    await b;
    for (let i = 0; i < 20; i++) {
      byHeader.releaseAll();
      await turns(2);
    }
    await Promise.all(a);

    const off = gatedServer({ maxConcurrency: 2, maxConcurrencyPerClient: 1, clientKey: false });
    const both = [
      off.server.handle(req('slow', ['a0'], 0), from('10.0.0.1')),
      off.server.handle(req('slow', ['a1'], 1), from('10.0.0.1')),
    ];
    await turns();
    expect(off.started).toEqual(['a0', 'a1']);
    off.releaseAll();
    await Promise.all(both);
  });
});
