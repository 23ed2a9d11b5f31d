import { createServer } from '@jsonrpc-kit/server';
import { describe, expect, it } from 'vitest';
import { createWebSocketTransport } from './client-transport.js';
import { createWebSocketServer } from './server.js';

describe('option names', () => {
  it('createWebSocketServer refuses an unknown option, and names the replacement of a renamed one', () => {
    const server = createServer();
    expect(() =>
      createWebSocketServer(server, { noServer: true, maxPayload: 10 } as never),
    ).toThrow('createWebSocketServer: unknown option "maxPayload" (renamed: use maxMessageBytes)');
    expect(() => createWebSocketServer(server, { noServer: true, maxSize: 10 } as never)).toThrow(
      'createWebSocketServer: unknown option "maxSize"',
    );
    const wss = createWebSocketServer(server, { noServer: true, maxMessageBytes: 10 });
    void wss.close();
  });

  it('createWebSocketServer({ server, port }), the old call shape, says what to pass', () => {
    expect(() =>
      createWebSocketServer({ server: createServer(), port: 0 } as never, undefined as never),
    ).toThrow(/the first argument is the JSON-RPC server/);
  });

  it('createWebSocketTransport refuses an unknown option, and names the replacement of a renamed one', () => {
    expect(() =>
      createWebSocketTransport({ url: 'ws://127.0.0.1:1/', queue: { maxSize: 1 } } as never),
    ).toThrow('createWebSocketTransport: unknown option "queue" (renamed: use maxQueue');
    expect(() =>
      createWebSocketTransport({ url: 'ws://127.0.0.1:1/', maxPayload: 1 } as never),
    ).toThrow('(renamed: use maxMessageBytes)');
  });
});
