// The transports of the matrix: one small factory each, all serving the same server
// (matrix-fixtures/server.mjs) and handing back a client, a raw channel for hand-written bytes,
// and a close that releases everything the factory opened.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import {
  createServer as createNetServer,
  type Server as NetServer,
  connect as netConnect,
  type Socket,
} from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Client, type ClientOptions, createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, type Transport } from '@jsonrpc-kit/core';
import { tapTransport } from '@jsonrpc-kit/core/testing';
import type { Server } from '@jsonrpc-kit/server';
import { createHttpTransport, listen } from '@jsonrpc-kit/transport-http/node';
import { createStreamTransport, spawnTransport } from '@jsonrpc-kit/transport-stdio';
import { createWebSocketServer, createWebSocketTransport } from '@jsonrpc-kit/transport-ws';
import { WebSocket } from 'ws';
import { createMatrixServer } from './matrix-fixtures/server.mjs';

/** How long a raw channel waits for an answer. */
const RAW_WAIT = 2000;

/** A channel that carries hand-written text to the same server, outside any client. */
export interface RawChannel {
  /**
   * Sends `text` (framed as the transport frames it, nothing else) and waits for the next answer.
   *
   * @returns the answer's text, or `undefined` when the transport says there is none (HTTP 204)
   */
  exchange(text: string): Promise<string | undefined>;
  /** Byte-stream transports: writes bytes as they are, no framing added, expecting no answer. */
  write?(bytes: Buffer): void;
}

/** One running transport of the matrix. */
export interface MatrixSetup {
  /** The client under test. */
  readonly client: Client;
  /** The in-process server, or `undefined` when it runs in a child process. */
  readonly server: Server | undefined;
  /** Whether the server can call the client back (notify, request). */
  readonly duplex: boolean;
  /** Every message the client sent, as on the wire. */
  readonly sent: readonly string[];
  /**
   * The framing of a byte-stream transport (stdio, TCP), `undefined` for message transports.
   */
  readonly framing: Framing | undefined;
  /**
   * Writes raw bytes into the client's own connection, beside the client (byte-stream
   * transports only); the server's answers reach the client.
   */
  readonly inject: ((bytes: Buffer) => void) | undefined;
  /** Opens a raw channel to the same server. */
  raw(): Promise<RawChannel>;
  /** Closes the client, the raw channels and the server side. */
  close(): Promise<void>;
}

/** A transport of the matrix. */
export interface MatrixTransport {
  readonly name: string;
  readonly duplex: boolean;
  /** The framing of a byte-stream transport, `undefined` for message transports. */
  readonly framing: Framing | undefined;
  /**
   * Starts the server and a client.
   *
   * @param options - the client's options
   * @param wrap - wraps the client's transport (closest to the wire), e.g. to inject faults
   */
  setup(options?: ClientOptions, wrap?: TransportWrapper): Promise<MatrixSetup>;
}

/** The framings of the byte-stream transports. */
export type Framing = 'content-length' | 'newline';

function fixture(name: string): string {
  return fileURLToPath(new URL(`./matrix-fixtures/${name}`, import.meta.url));
}

/** A queue of received texts, read one at a time with a deadline. */
function inbox(): { push(text: string): void; next(): Promise<string> } {
  const texts: string[] = [];
  const waiters: ((text: string) => void)[] = [];
  return {
    push(text) {
      const waiter = waiters.shift();
      if (waiter) waiter(text);
      else texts.push(text);
    },
    next() {
      const text = texts.shift();
      if (text !== undefined) return Promise.resolve(text);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(done), 1);
          reject(new Error(`no answer within ${RAW_WAIT} ms`));
        }, RAW_WAIT);
        const done = (t: string): void => {
          clearTimeout(timer);
          resolve(t);
        };
        waiters.push(done);
      });
    },
  };
}

/** Frames a text by hand, as the wire carries it. */
export function frame(framing: Framing, text: string): Buffer {
  if (framing === 'newline') return Buffer.from(`${text}\n`, 'utf8');
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

/** Reads frames off a byte stream by hand (no kit decoder involved). */
function rawFramedChannel(readable: Readable, writable: Writable, framing: Framing): RawChannel {
  const box = inbox();
  let buffer = Buffer.alloc(0);
  readable.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (framing === 'newline') {
        const end = buffer.indexOf(0x0a);
        if (end < 0) return;
        const line = buffer.subarray(0, end).toString('utf8').trim();
        buffer = buffer.subarray(end + 1);
        if (line !== '') box.push(line);
      } else {
        const headerEnd = buffer.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const header = buffer.subarray(0, headerEnd).toString('ascii');
        const match = /content-length:\s*(\d+)/i.exec(header);
        if (!match) throw new Error(`bad header from the server: ${header}`);
        const length = Number(match[1]);
        if (buffer.length < headerEnd + 4 + length) return;
        box.push(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8'));
        buffer = buffer.subarray(headerEnd + 4 + length);
      }
    }
  });
  return {
    exchange(text) {
      writable.write(frame(framing, text));
      return box.next();
    },
    write(bytes) {
      writable.write(bytes);
    },
  };
}

/** Wraps the client's transport, e.g. in a fault-injecting transport. */
export type TransportWrapper = (transport: Transport) => Transport;

/** Wraps the client's transport so the test sees what went on the wire. */
function watched(transport: Transport, sent: string[], wrap?: TransportWrapper): Transport {
  return tapTransport(wrap === undefined ? transport : wrap(transport), (direction, message) => {
    if (direction === 'sent') sent.push(message);
  });
}

async function settle(steps: readonly (() => unknown)[]): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch {
      // Closing what already closed.
    }
  }
}

const memory: MatrixTransport = {
  name: 'memory',
  duplex: true,
  framing: undefined,
  async setup(options, wrap) {
    const server = createMatrixServer();
    const [clientSide, serverSide] = createMemoryTransportPair();
    server.connect(serverSide, { kind: 'memory' });
    const sent: string[] = [];
    const client = createClient(watched(clientSide, sent, wrap), options);
    const raws: Transport[] = [];
    return {
      client,
      server,
      duplex: true,
      sent,
      framing: undefined,
      inject: undefined,
      async raw() {
        const [mine, theirs] = createMemoryTransportPair();
        server.connect(theirs, { kind: 'memory' });
        const box = inbox();
        await mine.start({ onMessage: (text) => box.push(text), onClose: () => {} });
        raws.push(mine);
        return {
          async exchange(text) {
            await mine.send(text);
            return box.next();
          },
        };
      },
      close: () =>
        settle([() => client.close(), ...raws.map((t) => () => t.close()), () => server.close()]),
    };
  },
};

function postRaw(url: string, body: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json' },
        timeout: RAW_WAIT,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 204) resolve(text === '' ? undefined : `unexpected body ${text}`);
          else if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${text}`));
          else resolve(text);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('raw POST timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

const http: MatrixTransport = {
  name: 'http',
  duplex: false,
  framing: undefined,
  async setup(options, wrap) {
    const server = createMatrixServer();
    const listener = await listen(server, { host: '127.0.0.1', port: 0 });
    const sent: string[] = [];
    const client = createClient(
      watched(createHttpTransport({ url: listener.url }), sent, wrap),
      options,
    );
    return {
      client,
      server,
      duplex: false,
      sent,
      framing: undefined,
      inject: undefined,
      raw: async () => ({ exchange: (text) => postRaw(listener.url, text) }),
      close: () => settle([() => client.close(), () => listener.close(), () => server.close()]),
    };
  },
};

const ws: MatrixTransport = {
  name: 'ws',
  duplex: true,
  framing: undefined,
  async setup(options, wrap) {
    const server = createMatrixServer();
    const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
    await wss.ready;
    const url = `ws://127.0.0.1:${wss.port}`;
    const sent: string[] = [];
    const transport = createWebSocketTransport({ url, reconnect: false });
    const client = createClient(watched(transport, sent, wrap), options);
    const sockets: WebSocket[] = [];
    return {
      client,
      server,
      duplex: true,
      sent,
      framing: undefined,
      inject: undefined,
      async raw() {
        const socket = new WebSocket(url);
        sockets.push(socket);
        const box = inbox();
        socket.on('message', (data, isBinary) => {
          box.push(isBinary ? `binary frame: ${String(data)}` : String(data));
        });
        await once(socket, 'open');
        return {
          exchange(text) {
            socket.send(text);
            return box.next();
          },
        };
      },
      close: () =>
        settle([
          () => client.close(),
          ...sockets.map((s) => () => s.terminate()),
          () => wss.close({ timeout: 50 }),
          () => server.close(),
        ]),
    };
  },
};

function killChild(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  return exited;
}

function spawned(framing: Framing): MatrixTransport {
  return {
    name: `stdio child (${framing})`,
    duplex: true,
    framing,
    async setup(options, wrap) {
      const transport = spawnTransport(process.execPath, [fixture('stdio-server.mjs'), framing], {
        framing,
      });
      const sent: string[] = [];
      const client = createClient(watched(transport, sent, wrap), options);
      const children: ChildProcess[] = [];
      return {
        client,
        server: undefined,
        duplex: true,
        sent,
        framing,
        inject: (bytes) => transport.process.stdin!.write(bytes),
        async raw() {
          const child = spawn(process.execPath, [fixture('stdio-server.mjs'), framing], {
            stdio: ['pipe', 'pipe', 'inherit'],
          });
          children.push(child);
          return rawFramedChannel(child.stdout!, child.stdin!, framing);
        },
        close: () =>
          settle([
            () => client.close(),
            () => killChild(transport.process),
            ...children.map((c) => () => killChild(c)),
          ]),
      };
    },
  };
}

function tcp(framing: Framing): MatrixTransport {
  return {
    name: `stream over TCP (${framing})`,
    duplex: true,
    framing,
    async setup(options, wrap) {
      const server = createMatrixServer();
      const sockets = new Set<Socket>();
      const net: NetServer = createNetServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        const context =
          socket.remoteAddress === undefined
            ? { kind: 'tcp' }
            : { kind: 'tcp', remoteAddress: socket.remoteAddress };
        server.connect(createStreamTransport(socket, socket, { framing }), context);
      });
      net.listen(0, '127.0.0.1');
      await once(net, 'listening');
      const address = net.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP port');
      const dial = async (): Promise<Socket> => {
        const socket = netConnect(address.port, '127.0.0.1');
        await once(socket, 'connect');
        return socket;
      };
      const socket = await dial();
      const sent: string[] = [];
      const client = createClient(
        watched(createStreamTransport(socket, socket, { framing }), sent, wrap),
        options,
      );
      const raws: Socket[] = [];
      return {
        client,
        server,
        duplex: true,
        sent,
        framing,
        inject: (bytes) => socket.write(bytes),
        async raw() {
          const rawSocket = await dial();
          raws.push(rawSocket);
          return rawFramedChannel(rawSocket, rawSocket, framing);
        },
        close: () =>
          settle([
            () => client.close(),
            ...raws.map((s) => () => s.destroy()),
            () => server.close(),
            () => {
              for (const s of sockets) s.destroy();
            },
            () => new Promise<void>((resolve) => net.close(() => resolve())),
            () => socket.destroy(),
          ]),
      };
    },
  };
}

/** Every transport of the matrix. */
export const transports: readonly MatrixTransport[] = [
  memory,
  http,
  ws,
  spawned('content-length'),
  spawned('newline'),
  tcp('content-length'),
];
