// One running MCP server, two eras of clients at once: the MCP SDK 1.x client speaks 2025-11-25
// (initialize, a session, server→client requests, the GET stream), the SDK 2.x client
// (`@modelcontextprotocol/client`, pinned to 2026-07-28) speaks the stateless revision
// (`server/discover`, `_meta` on every request, input_required rounds, subscriptions/listen). Both
// drive the same server on the same endpoint, side by side.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpNodeHandler, createMcpServer, MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** Resolves when `wait` resolves, or fails naming `what` after `ms`. */
function within<T>(wait: Promise<T>, what: string, ms = 3_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    wait,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function serve() {
  const mcp = createMcpServer({ name: 'two-eras', version: '1.0.0' });
  mcp.tool(
    'greet',
    { description: 'Greets', input: v.object({ name: v.string() }) },
    ({ name }, ctx) => `Hello, ${name} (${ctx.client.stateless ? '2026' : '2025'})!`,
  );
  mcp.tool('ask', { description: 'Asks for a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
      { key: 'name' },
    );
    return `Hello, ${String(answer.content?.name)}!`;
  });
  const legacy = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
  const http: Server = createServer(createMcpNodeHandler(mcp, legacy));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  open.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await legacy.close();
    await mcp.close();
  });
  return { url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`), mcp };
}

describe('a 2025 SDK client and a 2026 SDK client on one running server', () => {
  it('both call tools, ask their own way, and hear of a tool list change', async () => {
    const { url, mcp } = await serve();

    const legacy = new LegacyClient(
      { name: 'sdk-1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    legacy.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    const legacyHeard = new Promise<void>((resolve) =>
      legacy.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
    );
    const legacyTransport = new LegacyTransport(url);
    await within(legacy.connect(legacyTransport), 'the 2025 client connecting');
    open.push(() => legacy.close());

    const modern = new ModernClient(
      { name: 'sdk-2', version: '2.0.0' },
      {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    modern.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Grace' },
    }));
    const modernHeard = new Promise<void>((resolve) =>
      modern.setNotificationHandler('notifications/tools/list_changed', async () => resolve()),
    );
    await within(modern.connect(new ModernTransport(url)), 'the 2026 client connecting');
    open.push(() => modern.close());

    // Each era as it negotiated it: a session for the one, none for the other.
    expect(legacyTransport.protocolVersion).toBe('2025-11-25');
    expect(legacyTransport.sessionId).toMatch(/.+/);
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(modern.getServerVersion()).toMatchObject({ name: 'two-eras', version: '1.0.0' });

    // Side by side: the 2025 client's question is a request to it on its session, the 2026
    // client's an input_required round its SDK answers and retries.
    const [a, b, c, d] = await within(
      Promise.all([
        legacy.callTool({ name: 'greet', arguments: { name: 'one' } }),
        modern.callTool({ name: 'greet', arguments: { name: 'two' } }),
        legacy.callTool({ name: 'ask', arguments: {} }),
        modern.callTool({ name: 'ask', arguments: {} }),
      ]),
      'the four calls',
    );
    expect(a.content).toEqual([{ type: 'text', text: 'Hello, one (2025)!' }]);
    expect(b.content).toEqual([{ type: 'text', text: 'Hello, two (2026)!' }]);
    expect(c.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(d.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);

    // A tool added: the 2025 client hears it on its session's GET stream, the 2026 client on its
    // subscriptions/listen stream.
    const subscription = await within(
      modern.listen({ toolsListChanged: true, promptsListChanged: true }),
      'the listen acknowledgment',
    );
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    mcp.tool('added', { description: 'Added while both are connected' }, () => 'added');
    await within(legacyHeard, 'the 2025 client hearing of the change');
    await within(modernHeard, 'the 2026 client hearing of the change');
    const [legacyTools, modernTools] = await Promise.all([legacy.listTools(), modern.listTools()]);
    expect(legacyTools.tools.map((t) => t.name)).toEqual(['greet', 'ask', 'added']);
    expect(modernTools.tools.map((t) => t.name)).toEqual(['greet', 'ask', 'added']);
    await subscription.close();
    expect(await within(subscription.closed, 'the subscription closing')).toBe('local');
  });
});
