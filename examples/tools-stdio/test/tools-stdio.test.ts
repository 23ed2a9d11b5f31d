import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_SERVER_PROTOCOL_VERSIONS } from '@jsonrpc-kit/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../src/main.js';
import { createToolsServer } from '../src/tools.js';

const NEWEST = MCP_SERVER_PROTOCOL_VERSIONS[0];

const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_JS = join(EXAMPLE_DIR, 'dist', 'server.js');

describe('the official MCP SDK client against node dist/server.js', () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('initializes, lists tools with JSON Schema, calls add and echo, fails an unknown tool', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_JS],
      stderr: 'pipe',
    });
    client = new Client({ name: 'sdk-test', version: '1.0.0' });
    await client.connect(transport);
    expect(client.getServerVersion()).toEqual({
      name: 'jsonrpc-kit-tools-stdio',
      version: '0.0.0',
    });
    expect(client.getServerCapabilities()).toEqual({ logging: {}, tools: { listChanged: true } });

    const { tools } = await client.listTools();
    expect(tools).toEqual([
      {
        name: 'add',
        description: 'Adds two numbers and answers the sum as text.',
        inputSchema: {
          type: 'object',
          properties: {
            a: { type: 'number', description: 'The first number' },
            b: { type: 'number', description: 'The second number' },
          },
          required: ['a', 'b'],
        },
      },
      {
        name: 'echo',
        description: 'Answers the text it is given.',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string', description: 'The text to echo' } },
          required: ['text'],
        },
      },
      expect.objectContaining({ name: 'countdown' }),
    ]);

    expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toEqual({
      content: [{ type: 'text', text: '3' }],
    });
    expect(await client.callTool({ name: 'echo', arguments: { text: 'héllo 😀' } })).toEqual({
      content: [{ type: 'text', text: 'héllo 😀' }],
    });
    const failed = await client.callTool({ name: 'add', arguments: { a: 'x', b: 2 } });
    expect(failed.isError).toBe(true);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await client.ping();
  });
});

describe('raw stdio', () => {
  function exchange(
    lines: readonly string[],
  ): Promise<{ stdout: string; stderr: string; code: number | null }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [SERVER_JS], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('server did not exit after stdin ended'));
      }, 10_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ stdout, stderr, code });
      });
      child.stdin.end(lines.map((line) => `${line}\n`).join(''));
    });
  }

  it('writes nothing but newline-framed JSON-RPC to stdout, logs to stderr, exits 0 on EOF', async () => {
    const { stdout, stderr, code } = await exchange([
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      'not json',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\\nb"}}}',
    ]);
    expect(code).toBe(0);
    expect(stdout.endsWith('\n')).toBe(true);
    const messages = stdout
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as { id: unknown });
    messages.sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: NEWEST,
          capabilities: { logging: {}, tools: { listChanged: true } },
          serverInfo: { name: 'jsonrpc-kit-tools-stdio', version: '0.0.0' },
        },
      },
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'a\nb' }] } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
    ]);
    expect(stderr).toContain('initialize from raw');
  });
});

describe('createMcpServer (in-process)', () => {
  const { server } = createToolsServer();

  it('echoes a supported protocol version and falls back for others', async () => {
    for (const [asked, answered] of [
      ['2024-11-05', '2024-11-05'],
      ['2025-03-26', '2025-03-26'],
      ['2025-06-18', '2025-06-18'],
      ['2025-11-25', '2025-11-25'],
      ['2030-01-01', NEWEST],
    ]) {
      const answer = await server.handle(
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"${asked}","capabilities":{}}}`,
      );
      expect(JSON.parse(answer!).result.protocolVersion).toBe(answered);
    }
  });

  it('rejects initialize without a protocol version (-32602)', async () => {
    const answer = await server.handle(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
    );
    expect(JSON.parse(answer!)).toMatchObject({ error: { code: -32602 } });
  });

  it('rejects tools/call without a name (-32602)', async () => {
    const answer = await server.handle(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}',
    );
    expect(JSON.parse(answer!)).toMatchObject({ error: { code: -32602 } });
  });

  it('refuses two tools with one name', () => {
    expect(() => createToolsServer().tool('add', {}, () => '')).toThrow(TypeError);
  });
});

describe('main: run(log)', () => {
  it('spawns the server, talks MCP, and the child exits', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    const text = lines.join('\n');
    expect(text).toContain('"method":"tools/list"');
    expect(text).toContain('"text":"42"');
    expect(text).toContain('"code":-32602');
    expect(text).toMatch(/server exited \(code 0\)/);
  });
});
