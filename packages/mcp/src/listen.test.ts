import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, type JsonRpcNotification, mcpProfile } from '@jsonrpc-kit/core';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMcpNodeHandler,
  createMcpServer,
  MCP_PUSH_METHODS,
  type McpServer,
  META_SUBSCRIPTION_ID,
} from './index.js';

const V = '2026-07-28';
const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function serve(): Promise<{ url: string; mcp: McpServer }> {
  const mcp = createMcpServer({ name: 'test', version: '1.0.0' });
  mcp.tool('first', { description: 'A tool' }, () => 'first');
  mcp.resource('a', 'test://a', {}, () => 'a');
  const legacy = createStreamableHttpNodeHandler(mcp.server, { pushMethods: MCP_PUSH_METHODS });
  const http: Server = createServer(createMcpNodeHandler(mcp, legacy));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  open.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await legacy.close();
    await mcp.close();
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, mcp };
}

const meta = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
};

function headers(method: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V,
    'mcp-method': method,
  };
}

/** Opens a listen stream; `next()` resolves with its next message (or fails after 3 s). */
async function listen(url: string, id: number, notifications: Record<string, unknown>) {
  const aborter = new AbortController();
  open.push(async () => aborter.abort());
  const res = await fetch(url, {
    method: 'POST',
    headers: headers('subscriptions/listen'),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications },
    }),
    signal: aborter.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const messages: any[] = [];
  let ended = false;
  let arrived: () => void = () => {};
  void (async () => {
    let buffer = '';
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)));
        }
        arrived();
      }
    } catch {
      // aborted
    }
    ended = true;
    arrived();
  })();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      arrived = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  /** The next message (fails after 3 s, or when the stream ended). */
  const next = async (): Promise<any> => {
    const deadline = Date.now() + 3_000;
    while (messages.length === 0) {
      if (ended) throw new Error('the stream ended');
      if (Date.now() >= deadline) throw new Error('no message in time');
      await wait(deadline - Date.now());
    }
    return messages.shift();
  };
  /** Resolves `true` when no message arrives within `ms`. */
  const quiet = async (ms: number): Promise<boolean> => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return messages.length === 0;
  };
  return { res, next, quiet, close: () => aborter.abort() };
}

describe('subscriptions/listen (2026-07-28)', () => {
  it('acknowledges first, then carries only what was asked, tagged with the request id', async () => {
    const { url, mcp } = await serve();
    const stream = await listen(url, 7, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toContain('text/event-stream');
    // No prompts: the server cannot tell of their changes, so it does not agree to.
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] },
        _meta: { [META_SUBSCRIPTION_ID]: 7 },
      },
    });
    mcp.resource('b', 'test://b', {}, () => 'b');
    mcp.resourceUpdated('test://b');
    expect(await stream.quiet(150)).toBe(true);
    mcp.tool('second', { description: 'Another tool' }, () => 'second');
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [META_SUBSCRIPTION_ID]: 7 } },
    });
    mcp.resourceUpdated('test://a');
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'test://a', _meta: { [META_SUBSCRIPTION_ID]: 7 } },
    });
  });

  it('keeps streams apart, and forgets one whose client went away', async () => {
    const { url, mcp } = await serve();
    const tools = await listen(url, 1, { toolsListChanged: true });
    const resources = await listen(url, 2, { resourcesListChanged: true });
    expect((await tools.next()).params.notifications).toEqual({ toolsListChanged: true });
    expect((await resources.next()).params.notifications).toEqual({ resourcesListChanged: true });
    mcp.resource('c', 'test://c', {}, () => 'c');
    expect(await resources.next()).toMatchObject({
      method: 'notifications/resources/list_changed',
      params: { _meta: { [META_SUBSCRIPTION_ID]: 2 } },
    });
    expect(await tools.quiet(150)).toBe(true);
    tools.close();
    mcp.tool('late', { description: 'After the client left' }, () => 'late');
    expect(await resources.quiet(150)).toBe(true);
  });

  it('ends every stream with its result when the server closes', async () => {
    const { url, mcp } = await serve();
    const stream = await listen(url, 'sub-1' as unknown as number, { toolsListChanged: true });
    await stream.next();
    const closing = mcp.close();
    expect(await stream.next()).toMatchObject({
      jsonrpc: '2.0',
      id: 'sub-1',
      result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: 'sub-1' } },
    });
    await closing;
  });

  it('refuses a listen request without its filter', async () => {
    const { url } = await serve();
    const res = await fetch(url, {
      method: 'POST',
      headers: headers('subscriptions/listen'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'subscriptions/listen',
        params: { _meta: meta },
      }),
      signal: AbortSignal.timeout(3_000),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32602);
  });

  it('works over a duplex connection too, ends when the client cancels, and is not for 2025', async () => {
    const mcp = createMcpServer({ name: 'test', version: '1.0.0' });
    mcp.tool('first', { description: 'A tool' }, () => 'first');
    const [clientSide, serverSide] = createMemoryTransportPair();
    mcp.connect(serverSide);
    const notes: JsonRpcNotification[] = [];
    const client = createClient(clientSide, {
      profile: mcpProfile,
      sendCancel: true,
      onNotification: (n) => {
        notes.push(n);
      },
    });
    open.push(
      () => client.close(),
      () => mcp.close(),
    );
    const until = async (count: number) => {
      for (let i = 0; i < 200 && notes.length < count; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(notes).toHaveLength(count);
    };
    const aborter = new AbortController();
    const listening = client.request(
      'subscriptions/listen',
      { _meta: meta, notifications: { toolsListChanged: true } },
      { signal: aborter.signal },
    );
    listening.catch(() => {});
    await until(1);
    expect(notes[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true } },
    });
    mcp.tool('second', { description: 'Another' }, () => 'second');
    await until(2);
    expect(notes[1]).toMatchObject({ method: 'notifications/tools/list_changed' });
    // The client cancels (notifications/cancelled): the stream ends, nothing more is sent.
    aborter.abort();
    await expect(listening).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    mcp.tool('third', { description: 'After the cancel' }, () => 'third');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notes.slice(2)).toEqual([]);
    // A 2025 request (no stateless _meta) has no such method.
    await expect(
      client.request('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ).rejects.toMatchObject({ code: -32601 });
  });
});
