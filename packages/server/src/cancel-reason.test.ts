import { createMemoryTransportPair, JsonRpcError, mcpProfile } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createServer } from './server.js';

describe('the reason of an incoming cancel', () => {
  it("reaches the handler's ctx.signal.reason (MCP's reason member)", async () => {
    const server = createServer({ profile: mcpProfile });
    let seen: ((reason: unknown) => void) | undefined;
    const reason = new Promise<unknown>((resolve) => {
      seen = resolve;
    });
    server.method(
      'tools/call',
      (_params, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            seen!(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
        }),
    );
    const [a, b] = createMemoryTransportPair();
    const connection = server.connect(b);
    const inbox: string[] = [];
    await a.start({ onMessage: (text) => inbox.push(text), onClose() {} });
    await a.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}');
    await a.send(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user pressed stop"}}',
    );
    const error = (await reason) as JsonRpcError;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.message).toBe('Request cancelled: user pressed stop');
    expect(error.data).toEqual({ reason: 'user pressed stop' });
    // MCP answers no cancelled request.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(inbox).toEqual([]);
    await connection.close();
  });

  it('keeps the plain message when the notice gives no reason', async () => {
    const server = createServer({ profile: mcpProfile });
    let seen: ((reason: unknown) => void) | undefined;
    const reason = new Promise<unknown>((resolve) => {
      seen = resolve;
    });
    server.method(
      'slow',
      (_params, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            seen!(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
        }),
    );
    const [a, b] = createMemoryTransportPair();
    const connection = server.connect(b);
    await a.start({ onMessage() {}, onClose() {} });
    await a.send('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    await a.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}');
    expect(((await reason) as Error).message).toBe('Request cancelled');
    await connection.close();
  });
});
