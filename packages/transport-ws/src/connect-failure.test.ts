/**
 * A client whose first connection never opens (nothing listens, the server refuses the upgrade)
 * learns why within the connect phase: the transport closes with a `TransportError` whose cause is
 * the refusal, `onStateChange` is told with it, and the calls fail with it as their cause (and in
 * their message); not with a 30 s timeout.
 */

import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { ConnectionClosedError, TransportError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createEchoHandler } from '../test/echo-handler.js';
import { withTimeout, wsUrl } from '../test/helpers.js';
import {
  createWebSocketTransport,
  type WebSocketTransportOptions,
  type WebSocketTransportState,
} from './client-transport.js';
import { createWebSocketServer } from './server.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port on 127.0.0.1 where nothing listens (it listened a moment ago). */
async function deadPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Change {
  readonly state: WebSocketTransportState;
  readonly previous: WebSocketTransportState;
  readonly error: Error | undefined;
}

function clientFor(options: WebSocketTransportOptions) {
  const changes: Change[] = [];
  const transport = createWebSocketTransport({
    ...options,
    onStateChange: (state, previous, error) => changes.push({ state, previous, error }),
  });
  const client = createClient(transport, { callTimeout: 10_000 });
  cleanups.push(() => client.close());
  return { client, transport, changes };
}

/**
 * The transport's closing error, from the call's rejection within `ms` (a test that would wait
 * for the call's timeout fails): the call fails with a `ConnectionClosedError` whose message
 * says why and whose cause is that error.
 */
async function failure(call: Promise<unknown>, ms = 3000): Promise<Error> {
  const settled = await withTimeout(
    call.then(
      () => new Error('the call succeeded'),
      (error: unknown) => error as Error,
    ),
    ms,
    'the call to fail',
  );
  expect(settled).toBeInstanceOf(ConnectionClosedError);
  const cause = settled.cause as Error;
  expect(settled.message).toContain(cause.message);
  return cause;
}

describe('a first connection that never opens', () => {
  it('nothing listens, reconnecting: calls fail after connectTimeout with ECONNREFUSED as the cause', async () => {
    const port = await deadPort();
    const { client, transport, changes } = clientFor({
      url: wsUrl(port),
      connectTimeout: 300,
      reconnect: { strategy: 'fixed', delay: 20, jitter: 0 },
    });
    const started = Date.now();
    const error = await failure(client.request('echo', ['x']));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toContain(`Cannot connect to ws://127.0.0.1:${port}/`);
    expect(error.message).toContain('ECONNREFUSED');
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(transport.state).toBe('closed');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ state: 'closed', previous: 'connecting' });
    expect(changes[0]!.error).toBe(error);
  });

  it('nothing listens, reconnect: false: the first refusal fails the call at once', async () => {
    const port = await deadPort();
    const { client, changes } = clientFor({ url: wsUrl(port), reconnect: false });
    const error = await failure(client.request('echo', ['x']));
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).not.toMatch(/1006/);
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(changes.map((c) => [c.state, c.error])).toEqual([['closed', error]]);
  });

  it('the Origin check refuses the upgrade: the cause says 403', async () => {
    const wss = createWebSocketServer(createEchoHandler(), {
      port: 0,
      host: '127.0.0.1',
      allowedOrigins: ['https://app.example'],
    });
    cleanups.push(() => wss.close({ timeout: 50 }));
    await wss.ready;
    const { client, changes } = clientFor({
      url: wsUrl(wss.port),
      headers: { origin: 'https://evil.example' },
      connectTimeout: 300,
      reconnect: { strategy: 'fixed', delay: 20, jitter: 0 },
    });
    const error = await failure(client.request('echo', ['x']));
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toContain('Unexpected server response: 403');
    expect((error.cause as Error).message).toBe('Unexpected server response: 403');
    expect(changes.at(-1)?.error).toBe(error);
  });

  it('a server that comes up within connectTimeout is still reached', async () => {
    const port = await deadPort();
    const { client, changes } = clientFor({
      url: wsUrl(port),
      connectTimeout: 2000,
      reconnect: { strategy: 'fixed', delay: 20, jitter: 0 },
    });
    const call = client.request('echo', ['late']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const wss = createWebSocketServer(createEchoHandler(), { port, host: '127.0.0.1' });
    cleanups.push(() => wss.close({ timeout: 50 }));
    await wss.ready;
    expect(await withTimeout(call, 3000, 'the call')).toEqual(['late']);
    expect(changes.map((c) => c.state)).toEqual(['open']);
  });
});
