/**
 * The official MCP SDK client against the example's server in this process, with every text on
 * the wire recorded: what the SDK sends (no params for `tools/list` and `ping`) and what the
 * server answers (nothing, for a cancelled call).
 */
import { createMemoryTransportPair, type Transport } from '@jsonrpc-kit/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolsServer } from '../src/tools.js';

/** Records the raw texts in both directions. */
interface Wire {
  readonly sent: string[];
  readonly received: string[];
}

/** An MCP SDK transport over one side of a kit memory pair. */
function sdkTransport(side: Transport, wire: Wire): SdkTransport {
  const transport: SdkTransport = {
    start: () =>
      side.start({
        onMessage: (text) => {
          wire.received.push(text);
          transport.onmessage?.(JSON.parse(text) as JSONRPCMessage);
        },
        onClose: () => transport.onclose?.(),
      }),
    send: (message) => {
      const text = JSON.stringify(message);
      wire.sent.push(text);
      return side.send(text);
    },
    close: () => side.close(),
  };
  return transport;
}

let started: { aborted: boolean } | undefined;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(): Promise<{ client: Client; wire: Wire }> {
  const server = createToolsServer();
  server.tool(
    'slow',
    { description: 'Waits until cancelled.' },
    (_args, ctx) =>
      new Promise<string>((_resolve, reject) => {
        const state = { aborted: false };
        started = state;
        ctx.signal.addEventListener('abort', () => {
          state.aborted = true;
          reject(ctx.signal.reason);
        });
      }),
  );
  const [serverSide, clientSide] = createMemoryTransportPair();
  const connection = server.connect(serverSide);
  cleanups.push(() => connection.close());
  const wire: Wire = { sent: [], received: [] };
  const client = new Client({ name: 'sdk-wire', version: '1.0.0' });
  await client.connect(sdkTransport(clientSide, wire));
  cleanups.push(() => client.close());
  return { client, wire };
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error('timed out');
}

describe('the MCP SDK client, wire recorded', () => {
  it('lists tools and pings without params, and the server answers', async () => {
    const { client, wire } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'echo', 'countdown', 'slow']);
    await client.ping();
    const sent = wire.sent.map((text) => JSON.parse(text) as { method?: string; params?: unknown });
    const list = sent.find((m) => m.method === 'tools/list')!;
    const ping = sent.find((m) => m.method === 'ping')!;
    expect('params' in list).toBe(false);
    expect('params' in ping).toBe(false);
  });

  it('cancels a call with notifications/cancelled, and no answer to it comes back', async () => {
    const { client, wire } = await connect();
    started = undefined;
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await waitFor(() => started !== undefined);
    const id = (
      wire.sent.map((text) => JSON.parse(text)).find((m) => m.method === 'tools/call') as {
        id: number;
      }
    ).id;
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await waitFor(() => started!.aborted);
    // Anything the server sent for the cancelled call would arrive before the answer to this.
    await client.ping();
    expect(wire.sent.map((text) => JSON.parse(text))).toContainEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'changed my mind' },
    });
    const answers = wire.received.map((text) => JSON.parse(text) as { id?: unknown });
    expect(answers.filter((message) => message.id === id)).toEqual([]);
  });
});
