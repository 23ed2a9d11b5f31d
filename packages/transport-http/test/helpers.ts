// Test helpers: a tiny MessageHandler, raw HTTP over net, and servers that always close.
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { TransportContext } from '@jsonrpc-kit/core';
import type { MessageHandler } from '@jsonrpc-kit/core/engine';

/** A MessageHandler that records what it saw. */
export interface EchoServer extends MessageHandler {
  readonly texts: string[];
  readonly contexts: TransportContext[];
  /** Resolves with the signal's reason when a `wait` call's signal aborts. */
  aborted: Promise<unknown>;
}

/**
 * `echo` answers its params; `wait` answers when the transport's signal aborts (never otherwise);
 * `boom` rejects handle(); notifications (no id) get nothing; anything not JSON gets -32700.
 */
export function echoServer(): EchoServer {
  let markAborted!: (reason: unknown) => void;
  const self: EchoServer = {
    texts: [],
    contexts: [],
    aborted: new Promise((resolve) => {
      markAborted = resolve;
    }),
    async handle(text, context) {
      self.texts.push(text);
      if (context !== undefined) self.contexts.push(context);
      let message: { id?: unknown; method?: string; params?: unknown };
      try {
        message = JSON.parse(text);
      } catch {
        return '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
      }
      if (Array.isArray(message))
        return JSON.stringify(message.map((m) => ({ jsonrpc: '2.0', id: m.id, result: m.params })));
      if (message.method === 'boom') throw new Error('handler bug');
      if (message.method === 'wait') {
        const signal = context?.signal;
        await new Promise<void>((resolve) => {
          signal?.addEventListener('abort', () => {
            markAborted(signal.reason);
            resolve();
          });
        });
      }
      if (!('id' in message)) return undefined;
      return JSON.stringify({ jsonrpc: '2.0', id: message.id, result: message.params ?? null });
    },
  };
  return self;
}

const servers = new Set<Server>();
const sockets = new Set<Socket>();

/** Starts a node:http server on 127.0.0.1, port 0. */
export async function serve(
  listener: RequestListener,
): Promise<{ server: Server; port: number; url: string }> {
  const server = createServer(listener);
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { server, port, url: `http://127.0.0.1:${port}/` };
}

/** Closes everything the helpers opened. */
export async function closeAll(): Promise<void> {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(
    [...servers].map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
  servers.clear();
}

/** A parsed raw HTTP response. */
export interface RawResponse {
  readonly status: number;
  readonly head: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the server closed the connection after it. */
  readonly closed: boolean;
}

/** Opens a raw TCP connection to the server. */
export function rawConnect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    sockets.add(socket);
    socket.on('error', reject);
  });
}

/**
 * Opens a streaming-HTTP session's GET event stream on a raw socket.
 *
 * @returns `text()`: what has arrived so far, head included
 */
export async function openGetStream(
  port: number,
  session: string,
): Promise<{ text: () => string }> {
  const socket = await rawConnect(port);
  let got = '';
  socket.on('data', (chunk: Buffer) => {
    got += chunk.toString('utf8');
  });
  socket.write(
    `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${session}\r\n\r\n`,
  );
  return { text: () => got };
}

/**
 * Reads one response from a socket (Content-Length or close delimited), with a time bound.
 */
export function readResponse(socket: Socket, timeoutMs = 3000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    let closed = false;
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no complete response within ${timeoutMs} ms: ${data.toString()}`));
    }, timeoutMs);
    const tryParse = (): boolean => {
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return false;
      const head = data.subarray(0, end).toString('latin1');
      const lines = head.split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const rest = data.subarray(end + 4);
      let body: Buffer;
      if (headers['content-length'] !== undefined) {
        const n = Number(headers['content-length']);
        if (rest.length < n) return false;
        body = rest.subarray(0, n);
      } else if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        let at = 0;
        for (;;) {
          const lineEnd = rest.indexOf('\r\n', at);
          if (lineEnd === -1) return false;
          const size = Number.parseInt(rest.subarray(at, lineEnd).toString(), 16);
          if (rest.length < lineEnd + 2 + size + 2) return false;
          if (size === 0) break;
          parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
          at = lineEnd + 2 + size + 2;
        }
        body = Buffer.concat(parts);
      } else if (status === 204 || status === 304) {
        body = Buffer.alloc(0);
      } else {
        if (!closed) return false;
        body = rest;
      }
      cleanup();
      resolve({ status, head, headers, body: body.toString('utf8'), closed });
      return true;
    };
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      tryParse();
    };
    const onEnd = (): void => {
      closed = true;
      if (!tryParse()) {
        cleanup();
        reject(
          new Error(`connection closed before a full response: ${JSON.stringify(data.toString())}`),
        );
      }
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', onEnd);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onEnd);
  });
}

/** Sends raw bytes on a new connection and reads one response. */
export async function rawExchange(
  port: number,
  raw: string | Buffer,
  timeoutMs?: number,
): Promise<RawResponse> {
  const socket = await rawConnect(port);
  const response = readResponse(socket, timeoutMs);
  socket.write(raw);
  return response;
}

/** Builds a raw POST with an honest Content-Length. */
export function rawPost(
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  path = '/',
): string {
  let head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Waits until `check` holds, polling, bounded. */
export async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Whether a socket gets closed by the other side within the bound. */
export function closedWithin(socket: Socket, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) {
      resolve(true);
      return;
    }
    const timer = setTimeout(() => resolve(false), timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    socket.once('close', done);
    socket.once('end', done);
  });
}
