/**
 * Cancel reasons between the kit and the official MCP SDK, both ways: the SDK's
 * `notifications/cancelled` `reason` reaches a kit handler's `ctx.signal.reason`, and the reason
 * a kit caller aborts with reaches an SDK handler's `extra.signal.reason`. The two sides talk
 * through the SDK's own in-memory transport, bridged to the kit's `Transport` as JSON text.
 */
import { createClient } from '@jsonrpc-kit/client';
import { mcpProfile, type Transport, type TransportHandler } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One end of the SDK's in-memory pair as a kit transport: JSON text in, JSON text out. */
function kitSide(sdk: InMemoryTransport): Transport {
  return {
    async start(handler: TransportHandler) {
      sdk.onmessage = (message) => handler.onMessage(JSON.stringify(message));
      sdk.onclose = () => handler.onClose();
      await sdk.start();
    },
    send: (text) => sdk.send(JSON.parse(text) as JSONRPCMessage),
    close: () => sdk.close(),
  };
}

/** Resolves with the first value given to `settle`. */
function deferred<T>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

describe('cancel reasons with the MCP SDK', () => {
  it("the SDK client's reason reaches the kit handler's ctx.signal.reason", async () => {
    const started = deferred<void>();
    const seen = deferred<unknown>();
    const server = createServer({ profile: mcpProfile });
    server.method('initialize', (params: { protocolVersion: string }) => ({
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'kit', version: '0.0.0' },
    }));
    server.notification('notifications/initialized', () => {});
    server.method(
      'tools/call',
      (_params, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            seen.settle(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
          started.settle();
        }),
    );
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const connection = server.connect(kitSide(serverEnd));
    cleanups.push(() => connection.close());
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(clientEnd);
    cleanups.push(() => client.close());

    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: {} }, CallToolResultSchema, {
      signal: controller.signal,
    });
    await started.promise;
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    const reason = (await seen.promise) as Error & { data?: unknown };
    expect(reason.message).toBe('Request cancelled: user pressed stop');
    expect(reason.data).toEqual({ reason: 'user pressed stop' });
  }, 10_000);

  it("the kit client's abort reason reaches the SDK handler", async () => {
    const started = deferred<void>();
    const seen = deferred<unknown>();
    const server = new McpServer(
      { name: 'sdk', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(
      CallToolRequestSchema,
      (_request, extra) =>
        new Promise((_resolve, reject) => {
          extra.signal.addEventListener('abort', () => {
            seen.settle(extra.signal.reason);
            reject(new Error('cancelled'));
          });
          started.settle();
        }),
    );
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    cleanups.push(() => server.close());
    const client = createClient(kitSide(clientEnd), { profile: mcpProfile, sendCancel: true });
    cleanups.push(() => client.close());
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'kit', version: '0.0.0' },
    });
    await client.notify('notifications/initialized');

    const controller = new AbortController();
    const call = client.request(
      'tools/call',
      { name: 'slow', arguments: {} },
      { signal: controller.signal },
    );
    await started.promise;
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    expect(await seen.promise).toBe('user pressed stop');
  }, 10_000);
});
