import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryTransportPair, JsonRpcError, mcpProfile } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpClient, createMcpFetch, headerValue, toolHeaderNames } from './client-index.js';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** A 2026-07-28 server on the kit: discovery, a tool with an MRTR round; records what it got. */
function statelessServer(seen: Array<{ method: string; params: Record<string, unknown> }>) {
  const server = createServer({ profile: mcpProfile });
  let rejectedOnce = false;
  server.method('server/discover', (params: Record<string, unknown>) => {
    seen.push({ method: 'server/discover', params });
    if (!rejectedOnce) {
      rejectedOnce = true;
      throw new JsonRpcError(-32022, 'Unsupported protocol version', { supported: ['2026-07-28'] });
    }
    return {
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      serverInfo: { name: 'stateless', version: '1' },
    };
  });
  server.method('tools/call', (params: Record<string, unknown>): Record<string, unknown> => {
    seen.push({ method: 'tools/call', params });
    if (params.inputResponses === undefined) {
      return {
        resultType: 'input_required',
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              message: 'sure?',
              requestedSchema: {
                type: 'object',
                properties: { ok: { type: 'boolean', default: true } },
              },
            },
          },
        },
        requestState: 'opaque-1',
      };
    }
    return {
      resultType: 'complete',
      content: [{ type: 'text', text: JSON.stringify(params.inputResponses) }],
    };
  });
  return server;
}

describe('the stateless lifecycle (2026-07-28)', () => {
  it('discovers (moving to a version the server names), puts _meta on each request, answers MRTR rounds', async () => {
    const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
    const server = statelessServer(seen);
    const [clientSide, serverSide] = createMemoryTransportPair();
    server.connect(serverSide);
    const mcp = createMcpClient(clientSide, {
      name: 'host',
      version: '1',
      protocolVersion: '2026-07-28',
      protocolVersions: ['2026-07-28', '2025-11-25'],
      handlers: { elicitation: () => ({ action: 'accept', content: {} }) },
    });
    open.push(() => mcp.close());
    const discovered = await mcp.connect();
    expect(discovered).toMatchObject({
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'stateless' },
    });
    const result = await mcp.callTool('t', { x: 1 });
    expect(result.content).toEqual([
      { type: 'text', text: '{"confirm":{"action":"accept","content":{"ok":true}}}' },
    ]);
    const calls = seen.filter((s) => s.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]?.params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'host', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    });
    expect(calls[1]?.params).toMatchObject({
      name: 't',
      arguments: { x: 1 },
      requestState: 'opaque-1',
    });
  });

  it('moves to a version the server supports after -32022', async () => {
    const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
    const server = statelessServer(seen);
    const [clientSide, serverSide] = createMemoryTransportPair();
    server.connect(serverSide);
    // The server refuses the first discovery with -32022, naming the versions it supports.
    const mcp = createMcpClient(clientSide, {
      name: 'host',
      version: '1',
      protocolVersion: '2026-07-28',
      protocolVersions: ['2026-07-28'],
    });
    open.push(() => mcp.close());
    await mcp.connect();
    expect(mcp.protocolVersion).toBe('2026-07-28');
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'server/discover']);
  });

  it("takes the server's name and version from the discovery result's _meta", async () => {
    const server = createServer({ profile: mcpProfile });
    // As the revision has it (and the SDK 2.x server answers): serverInfo in `_meta` only.
    server.method('server/discover', () => ({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'meta-info', version: '2.0.0' } },
    }));
    const [clientSide, serverSide] = createMemoryTransportPair();
    server.connect(serverSide);
    const mcp = createMcpClient(clientSide, {
      name: 'host',
      version: '1',
      protocolVersion: '2026-07-28',
    });
    open.push(() => mcp.close());
    const discovered = await mcp.connect();
    expect(discovered.serverInfo).toEqual({ name: 'meta-info', version: '2.0.0' });
    expect(mcp.server?.capabilities).toEqual({ tools: {} });
  });
});

describe('createMcpFetch', () => {
  it('sends Mcp-Method, Mcp-Name, Mcp-Param-* and MCP-Protocol-Version on a real HTTP exchange', async () => {
    const received: IncomingHttpHeaders[] = [];
    const http = createHttpServer((req, res) => {
      received.push(req.headers);
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        const result =
          method === 'tools/list'
            ? {
                tools: [
                  {
                    name: 'geo',
                    inputSchema: {
                      type: 'object',
                      properties: {
                        region: { type: 'string', 'x-mcp-header': 'Region' },
                        n: { type: 'integer', 'x-mcp-header': 'N' },
                        q: { type: 'string' },
                      },
                    },
                  },
                  {
                    name: 'bad',
                    inputSchema: {
                      type: 'object',
                      properties: { v: { type: 'number', 'x-mcp-header': 'V' } },
                    },
                  },
                ],
              }
            : method === 'server/discover'
              ? {
                  supportedVersions: ['2026-07-28'],
                  capabilities: {},
                  serverInfo: { name: 's', version: '1' },
                }
              : { content: [] };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise((resolve) => http.close(resolve)));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const fetch = createMcpFetch();
    const mcp = createMcpClient(createStreamableHttpTransport({ url, fetch }), {
      name: 'host',
      version: '1',
      protocolVersion: '2026-07-28',
      http: fetch,
    });
    open.push(() => mcp.close());
    await mcp.connect();
    const tools = await mcp.listAllTools();
    expect(tools.map((t) => t.name)).toEqual(['geo']);
    await mcp.callTool('geo', { region: ' eu ', n: 3, q: 'x' });
    const call = received.at(-1)!;
    expect(call['mcp-method']).toBe('tools/call');
    expect(call['mcp-name']).toBe('geo');
    expect(call['mcp-protocol-version']).toBe('2026-07-28');
    expect(call['mcp-param-region']).toBe(headerValue(' eu '));
    expect(call['mcp-param-n']).toBe('3');
    expect(call['mcp-param-q']).toBeUndefined();
  });

  it('encodes values and refuses invalid annotations', () => {
    expect(headerValue('us-west1')).toBe('us-west1');
    expect(headerValue('Hello, 世界')).toBe(
      `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`,
    );
    expect(headerValue('a\nb')).toMatch(/^=\?base64\?/);
    expect(headerValue(false)).toBe('false');
    expect(headerValue(null)).toBeUndefined();
    const tool = (schema: Record<string, unknown>) => ({
      name: 't',
      inputSchema: { type: 'object', properties: schema },
    });
    expect(toolHeaderNames(tool({ a: { type: 'string', 'x-mcp-header': '' } }))).toBeUndefined();
    expect(
      toolHeaderNames(tool({ a: { type: 'string', 'x-mcp-header': 'My Region' } })),
    ).toBeUndefined();
    expect(toolHeaderNames(tool({ a: { type: 'object', 'x-mcp-header': 'A' } }))).toBeUndefined();
    expect(
      toolHeaderNames(
        tool({
          a: { type: 'string', 'x-mcp-header': 'X' },
          b: { type: 'string', 'x-mcp-header': 'x' },
        }),
      ),
    ).toBeUndefined();
    expect(toolHeaderNames(tool({ a: { type: 'boolean', 'x-mcp-header': 'Flag' } }))).toEqual(
      new Map([['a', 'Flag']]),
    );
  });
});
