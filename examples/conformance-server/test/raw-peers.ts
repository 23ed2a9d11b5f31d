/**
 * Raw peers for the conformance tests: they speak bytes and text only (no kit code), so a test
 * fails when the wire is wrong, whatever the kit believes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstLine } from '../../../tests/support/first-line.js';

export const EXAMPLE_DIR: string = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_JS: string = join(EXAMPLE_DIR, 'dist', 'server.js');

const require = createRequire(import.meta.url);

/** The few members of a `ws` WebSocket the tests use. */
interface RawSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number): void;
  terminate(): void;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'close', listener: (code: number) => void): void;
  on(event: 'open', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}
type RawSocketConstructor = new (url: string) => RawSocket;

/** `ws`, as the WebSocket transport package depends on it. */
export function loadWs(): RawSocketConstructor {
  const transportWs = require.resolve('@jsonrpc-kit/transport-ws/package.json');
  return createRequire(transportWs)('ws') as RawSocketConstructor;
}

/** A duplex peer that sends raw text and receives whole messages as text, in order. */
export interface DuplexPeer {
  send(text: string): void;
  /** The next message; rejects after `timeout` ms. */
  next(timeout?: number): Promise<string>;
  /** Messages received and not yet taken. */
  readonly buffered: number;
  close(): Promise<void>;
}

function createQueue() {
  const messages: string[] = [];
  const waiters: Array<(message: string) => void> = [];
  let ended: Error | undefined;
  const failers: Array<(error: Error) => void> = [];
  return {
    push(message: string) {
      const waiter = waiters.shift();
      failers.shift();
      if (waiter) waiter(message);
      else messages.push(message);
    },
    end(error: Error) {
      ended = error;
      for (const fail of failers.splice(0)) fail(error);
      waiters.length = 0;
    },
    get size() {
      return messages.length;
    },
    next(timeout = 5_000): Promise<string> {
      const message = messages.shift();
      if (message !== undefined) return Promise.resolve(message);
      if (ended) return Promise.reject(ended);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(onMessage);
          if (i !== -1) {
            waiters.splice(i, 1);
            failers.splice(i, 1);
          }
          reject(new Error(`no message within ${timeout} ms`));
        }, timeout);
        const onMessage = (m: string) => {
          clearTimeout(timer);
          resolve(m);
        };
        waiters.push(onMessage);
        failers.push((error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
    },
  };
}

/** Opens a raw WebSocket. */
export async function openWebSocket(
  url: string,
): Promise<DuplexPeer & { closeCode: Promise<number> }> {
  const WebSocket = loadWs();
  const socket = new WebSocket(url);
  const queue = createQueue();
  const closeCode = new Promise<number>((resolve) => {
    socket.on('close', (code) => {
      queue.end(new Error(`socket closed (${code})`));
      resolve(code);
    });
  });
  socket.on('message', (data) => queue.push(data.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    socket.on('open', resolve);
    socket.on('error', reject);
  });
  return {
    send: (text) => socket.send(text),
    next: (timeout) => queue.next(timeout),
    get buffered() {
      return queue.size;
    },
    closeCode,
    async close() {
      if (socket.readyState === 3) return;
      socket.close(1000);
      const timer = setTimeout(() => socket.terminate(), 1_000);
      await closeCode;
      clearTimeout(timer);
    },
  };
}

/** The framings of stdio mode. */
export type Framing = 'content-length' | 'newline';

/** Frames one message. */
export function frame(text: string, framing: Framing): Buffer {
  if (framing === 'newline') {
    // One JSON text per line: line breaks between tokens become spaces.
    return Buffer.from(`${text.replace(/\r?\n/g, ' ')}\n`, 'utf8');
  }
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

/**
 * A strict decoder of what the server writes: anything that is not a well-formed frame holding
 * JSON text is reported as garbage.
 */
export function createStrictDecoder(
  framing: Framing,
  onMessage: (text: string) => void,
  onGarbage: (description: string) => void,
): (chunk: Buffer) => void {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (framing === 'newline') {
        const end = buffer.indexOf(0x0a);
        if (end === -1) return;
        const line = buffer.subarray(0, end).toString('utf8');
        buffer = buffer.subarray(end + 1);
        try {
          JSON.parse(line);
        } catch {
          onGarbage(`not a JSON line: ${JSON.stringify(line)}`);
          continue;
        }
        onMessage(line);
        continue;
      }
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd === -1) {
        const start = buffer.subarray(0, 16).toString('latin1').toLowerCase();
        if (!'content-length: '.startsWith(start)) {
          onGarbage(`not a header: ${JSON.stringify(buffer.toString('latin1'))}`);
          buffer = Buffer.alloc(0);
        }
        return;
      }
      const header = buffer.subarray(0, headerEnd).toString('latin1');
      const match = /^Content-Length: (\d+)$/i.exec(header.split('\r\n')[0] ?? '');
      if (!match) {
        onGarbage(`bad header: ${JSON.stringify(header)}`);
        buffer = buffer.subarray(headerEnd + 4);
        continue;
      }
      const length = Number(match[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
      buffer = buffer.subarray(headerEnd + 4 + length);
      try {
        JSON.parse(body);
      } catch {
        onGarbage(`not JSON: ${JSON.stringify(body)}`);
        continue;
      }
      onMessage(body);
    }
  };
}

/** A spawned stdio server, spoken to with raw frames. */
export interface StdioPeer extends DuplexPeer {
  readonly child: ChildProcess;
  /** Anything on stdout that was not a well-formed frame. */
  readonly garbage: readonly string[];
  /** What the child wrote to stderr. */
  readonly stderr: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** Writes raw bytes to the child's stdin. */
  write(bytes: Buffer | string): void;
}

/** Spawns `node dist/server.js --stdio <framing>`. */
export function spawnStdio(framing: Framing, extraArgs: readonly string[] = []): StdioPeer {
  const child = spawn(process.execPath, [SERVER_JS, '--stdio', framing, ...extraArgs], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const queue = createQueue();
  const garbage: string[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout!.on(
    'data',
    createStrictDecoder(
      framing,
      (m) => queue.push(m),
      (g) => garbage.push(g),
    ),
  );
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      queue.end(new Error(`child exited (${code})`));
      resolve(code);
    });
  });
  return {
    child,
    garbage,
    stderr: () => stderr,
    exited,
    write: (bytes) => {
      child.stdin!.write(bytes);
    },
    send: (text) => {
      child.stdin!.write(frame(text, framing));
    },
    next: (timeout) => queue.next(timeout),
    get buffered() {
      return queue.size;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A spawned HTTP + WebSocket server. */
export interface NetworkChild {
  readonly child: ChildProcess;
  readonly firstLine: string;
  readonly httpUrl: string;
  readonly wsUrl: string;
  close(): Promise<void>;
}

/** Spawns `node dist/server.js --port 0` and reads its first stdout line. */
export async function spawnNetwork(
  args: readonly string[] = ['--port', '0'],
): Promise<NetworkChild> {
  const child = spawn(process.execPath, [SERVER_JS, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const line = await firstLine(child, () => `stderr: ${stderr}`);
  const [, httpUrl = '', wsUrl = ''] = line.split(' ');
  return {
    child,
    firstLine: line,
    httpUrl,
    wsUrl,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** POSTs raw text; returns status and body text. */
export async function post(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; body: string; contentType: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get('content-type'),
  };
}
