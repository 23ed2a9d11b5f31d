/**
 * The same server on Streamable HTTP: starts `server.js --http --port 0`, reads the address from
 * its first line, and calls it with the kit's Streamable HTTP client transport: progress of a slow
 * tool arrives on the answer's event stream, and a cancelled call stops the tool.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createClient } from '@jsonrpc-kit/client';
import type { JsonRpcNotification } from '@jsonrpc-kit/core';
import type { CallToolResult } from '@jsonrpc-kit/mcp';
import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';
import { textOf } from './tools.js';

/** Prints one line. */
type Log = (line: string) => void;

/**
 * Starts the server on HTTP (port 0) and resolves with its URL and a stop function.
 *
 * @param serverJs - the built server
 * @returns the URL and a function that ends the server
 * @throws Error when the server prints no address within 10 s
 */
export async function startHttpServer(
  serverJs: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [serverJs, '--http', '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the HTTP server printed no address')), 10_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', () => reject(new Error('the HTTP server exited')));
  });
  lines.close();
  const url = first.replace(/^listening /, '');
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      // A server still finishing work gets 2 s, then is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Calls the tools over Streamable HTTP.
 *
 * @param serverJs - the built server
 * @param log - where to print
 * @returns resolves when done and the server has stopped
 * @throws Error when an answer is not what the server must answer
 */
export async function runHttp(serverJs: string, log: Log): Promise<void> {
  const { url, stop } = await startHttpServer(serverJs);
  log(`tools-stdio over Streamable HTTP at ${url}`);
  const progress: string[] = [];
  const client = createClient(createStreamableHttpTransport({ url }), {
    callTimeout: 5_000,
    onNotification: (n: JsonRpcNotification) => {
      if (n.method === 'notifications/progress') {
        const p = n.params as { progress: number; total?: number };
        progress.push(`${p.progress}/${p.total}`);
        log(`  progress ${p.progress}/${p.total}`);
      }
    },
  });
  try {
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'jsonrpc-kit-example', version: '0.0.0' },
    });
    await client.notify('notifications/initialized');
    const sum = await client.request<CallToolResult>('tools/call', {
      name: 'add',
      arguments: { a: 2, b: 40 },
    });
    log(`add → ${textOf(sum)}`);
    const done = await client.request<CallToolResult>('tools/call', {
      name: 'countdown',
      arguments: { steps: 3, delayMs: 10 },
      _meta: { progressToken: 'demo' },
    });
    log(`countdown → ${textOf(done)} (progress on the answer's event stream)`);
    if (progress.join() !== '1/3,2/3,3/3')
      throw new Error(`tools-stdio: progress ${progress.join()}`);
  } finally {
    await client.close();
    await stop();
  }
}
