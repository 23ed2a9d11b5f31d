import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStreamableHttpNodeHandler } from '@jsonrpc-kit/transport-http/node';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMcpNodeHandler,
  createMcpServer,
  HEADER_MISMATCH,
  MCP_PUSH_METHODS,
  type McpServer,
  type McpServerOptions,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './index.js';

const V = '2026-07-28';
const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** An MCP server on node:http: 2025 through the kit's handler, 2026 through createMcpNodeHandler. */
async function serve(
  options: Partial<McpServerOptions> = {},
): Promise<{ url: string; mcp: McpServer }> {
  const mcp = createMcpServer({ name: 'test', version: '1.0.0', ...options });
  mcp.tool(
    'greet',
    {
      description: 'Greets someone, asking their name',
      input: v.object({ greeting: v.string() }),
    },
    async ({ greeting }, ctx) => {
      await ctx.log('info', 'greeting');
      const answer = await ctx.elicit(
        {
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
        { key: 'name' },
      );
      return `${greeting}, ${String(answer.content?.name)}!`;
    },
  );
  mcp.tool(
    'region',
    {
      description: 'Echoes a region sent as a header too',
      input: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      },
    },
    (args) => String(args.region),
  );
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

const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  ...extra,
});

async function post(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; type: string | null }> {
  const params = (body.params ?? {}) as Record<string, unknown>;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': String(body.method),
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    signal: AbortSignal.timeout(5_000),
  });
  const type = res.headers.get('content-type');
  const text = await res.text();
  if (type?.includes('text/event-stream')) {
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    return { status: res.status, body: events, type };
  }
  return { status: res.status, body: text ? JSON.parse(text) : undefined, type };
}

describe('MCP 2026-07-28 over HTTP, beside 2025 on one endpoint', () => {
  it('answers a 2025 client through initialize and a 2026 client statelessly', async () => {
    const { url } = await serve();
    const init = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toMatch(/.+/);
    expect((await init.json()).result.protocolVersion).toBe('2025-11-25');

    const discover = await post(url, {
      id: 2,
      method: 'server/discover',
      params: { _meta: meta() },
    });
    expect(discover.status).toBe(200);
    expect(discover.body.result).toMatchObject({
      supportedVersions: expect.arrayContaining([V, '2025-11-25']),
      capabilities: { tools: { listChanged: true } },
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'test', version: '1.0.0' } },
    });
    const list = await post(url, { id: 3, method: 'tools/list', params: { _meta: meta() } });
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'greet',
      'region',
    ]);
    const ping = await post(url, { id: 4, method: 'ping', params: { _meta: meta() } });
    expect(ping.status).toBe(404);
    expect(ping.body).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  it('refuses what the headers or _meta get wrong, with the request id', async () => {
    const { url } = await serve();
    const noMeta = await post(url, { id: 1, method: 'tools/list', params: {} });
    expect(noMeta).toMatchObject({ status: 400, body: { id: 1, error: { code: -32602 } } });
    const method = await post(
      url,
      { id: 2, method: 'tools/list', params: { _meta: meta() } },
      { 'mcp-method': 'prompts/list' },
    );
    expect(method).toMatchObject({
      status: 400,
      body: { id: 2, error: { code: HEADER_MISMATCH } },
    });
    const name = await post(
      url,
      { id: 3, method: 'tools/call', params: { name: 'region', arguments: {}, _meta: meta() } },
      { 'mcp-name': 'other' },
    );
    expect(name.body.error.code).toBe(HEADER_MISMATCH);
    const version = await post(
      url,
      {
        id: 4,
        method: 'server/discover',
        params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    expect(version).toMatchObject({
      status: 400,
      body: {
        id: 4,
        error: { code: UNSUPPORTED_PROTOCOL_VERSION, data: { requested: '2099-01-01' } },
      },
    });
    const call = (header: Record<string, string>) =>
      post(
        url,
        {
          id: 5,
          method: 'tools/call',
          params: { name: 'region', arguments: { region: 'Hello' }, _meta: meta() },
        },
        header,
      );
    expect(
      (await call({ 'mcp-param-region': '=?base64?SGVsbG8=?=' })).body.result.content[0].text,
    ).toBe('Hello');
    expect((await call({ 'mcp-param-region': '=?base64?SGVsbG8?=' })).body.error.code).toBe(
      HEADER_MISMATCH,
    );
    expect((await call({})).status).toBe(400);
  });

  it('turns elicit() into input_required; the retry resumes on another server with the key; a tampered state is refused', async () => {
    const keys = ['current key', 'older key'];
    const a = await serve({ requestState: { keys } });
    const b = await serve({ requestState: { keys: ['current key'] } });
    const call = (url: string, extra: Record<string, unknown> = {}, logLevel?: string) =>
      post(url, {
        id: 7,
        method: 'tools/call',
        params: {
          name: 'greet',
          arguments: { greeting: 'Hello' },
          ...extra,
          _meta: meta(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}),
        },
      });
    const first = await call(a.url);
    expect(first.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: { message: 'Your name?' } } },
      requestState: expect.any(String),
    });
    const state = first.body.result.requestState as string;
    const answer = {
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: state,
    };
    // Another server process, no shared memory, the same key; with a logLevel the log streams first.
    const second = await call(b.url, answer, 'info');
    expect(second.type).toContain('text/event-stream');
    expect(second.body[0]).toMatchObject({
      method: 'notifications/message',
      params: { data: 'greeting' },
    });
    expect(second.body.at(-1).result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    const tampered = await call(b.url, { ...answer, requestState: `${state.slice(0, -2)}xx` });
    expect(tampered.body.error).toMatchObject({ code: -32602, message: 'Invalid requestState' });
    const other = await serve({ requestState: { keys: ['another key'] } });
    expect((await call(other.url, answer)).body.error.code).toBe(-32602);
    const wrongCall = await post(a.url, {
      id: 8,
      method: 'tools/call',
      params: { name: 'greet', arguments: { greeting: 'Bye' }, ...answer, _meta: meta() },
    });
    expect(wrongCall.body.error.code).toBe(-32602);
  });

  it('asks for what the request did not declare with -32021 and no log without a logLevel', async () => {
    const { url } = await serve();
    const res = await post(url, {
      id: 1,
      method: 'tools/call',
      params: {
        name: 'greet',
        arguments: { greeting: 'Hi' },
        _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': {} }),
      },
    });
    expect(res.type).toContain('application/json');
    expect(res).toMatchObject({
      status: 400,
      body: { error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } },
    });
  });
});
