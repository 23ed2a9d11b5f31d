/**
 * Subscriptions leave nothing behind: 10,000 subscribe/unsubscribe cycles and 1,000 abrupt
 * disconnects end with an empty registry, every producer cleaned up, and the process's timers
 * back to where they were (counted, not timed).
 */
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair } from '@jsonrpc-kit/core';
import { createServer, createSubscriptions } from '@jsonrpc-kit/server';
import { describe, expect, it } from 'vitest';

const CYCLES = 10_000;
const DISCONNECTS = 1_000;

/** Live timers of this process. */
const timers = (): number =>
  process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

function setup() {
  const server = createServer();
  const subscriptions = createSubscriptions(server);
  let started = 0;
  let cleaned = 0;
  let listeners = 0;
  subscriptions.subscription('ticks', (_params, ctx) => {
    started++;
    const timer = setInterval(() => ctx.emit(1), 60_000);
    const onAbort = () => listeners--;
    listeners++;
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    return () => {
      cleaned++;
      clearInterval(timer);
    };
  });
  return {
    server,
    subscriptions,
    counts: () => ({ started, cleaned, listeners }),
  };
}

describe('subscriptions leave nothing behind', () => {
  it(`${CYCLES} subscribe/unsubscribe cycles on one connection`, { timeout: 120_000 }, async () => {
    const baseline = timers();
    const { server, subscriptions, counts } = setup();
    const [clientSide, serverSide] = createMemoryTransportPair();
    server.connect(serverSide);
    const client = createClient(clientSide);
    for (let i = 0; i < CYCLES; i++) {
      const sub = client.subscribe('ticks');
      await sub.ready;
      await sub.unsubscribe();
    }
    expect(counts()).toEqual({ started: CYCLES, cleaned: CYCLES, listeners: 0 });
    expect(subscriptions.count()).toBe(0);
    expect(subscriptions.connections).toBe(0);
    expect(timers()).toBeLessThanOrEqual(baseline);
    await client.close();
    await server.close();
  });

  it(`${DISCONNECTS} abrupt disconnects with live subscriptions`, {
    timeout: 120_000,
  }, async () => {
    const baseline = timers();
    const { server, subscriptions, counts } = setup();
    for (let i = 0; i < DISCONNECTS; i++) {
      const [clientSide, serverSide] = createMemoryTransportPair();
      server.connect(serverSide);
      const client = createClient(clientSide);
      await client.subscribe('ticks').ready;
      await client.subscribe('ticks').ready;
      await clientSide.close(); // no unsubscribe: the connection just goes
    }
    for (let i = 0; i < 100 && counts().cleaned < 2 * DISCONNECTS; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(counts()).toEqual({ started: 2 * DISCONNECTS, cleaned: 2 * DISCONNECTS, listeners: 0 });
    expect(subscriptions.count()).toBe(0);
    expect(subscriptions.connections).toBe(0);
    expect(server.connections.size).toBe(0);
    expect(timers()).toBeLessThanOrEqual(baseline);
  });
});
