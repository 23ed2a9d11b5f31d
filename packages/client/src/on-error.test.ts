import type { ErrorInfo } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';

describe('onError events', () => {
  it('tell their kind, level, method and id', async () => {
    const events: Array<[string, ErrorInfo]> = [];
    const peer = rawPeer({
      onError: (error, info) => events.push([error.name, info]),
      onRequest: (request) => {
        if (request.method === 'boom') throw new Error('boom');
        return null;
      },
      onNotification: () => {
        throw new Error('note');
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":7,"result":1}');
    await peer.reply('{"jsonrpc":"2.0","id":"s1","method":"boom"}');
    expect(await peer.next()).toBe(
      '{"jsonrpc":"2.0","id":"s1","error":{"code":-32603,"message":"Internal error"}}',
    );
    await peer.reply('{"jsonrpc":"2.0","method":"log"}');
    await peer.reply('not json');
    await peer.settle();
    expect(events).toEqual([
      ['ProtocolError', { kind: 'unexpected-response', level: 'warn', id: 7 }],
      ['Error', { kind: 'handler-failed', level: 'error', method: 'boom', id: 's1' }],
      ['Error', { kind: 'notification-failed', level: 'error', method: 'log' }],
      ['ProtocolError', { kind: 'invalid-message', level: 'warn' }],
    ]);
    await peer.client.close();
  });

  it('are dropped below onErrorLevel', async () => {
    const events: ErrorInfo[] = [];
    const peer = rawPeer({
      onError: (_error, info) => events.push(info),
      onErrorLevel: 'error',
      onRequest: () => {
        throw new Error('boom');
      },
    });
    await peer.reply('{"jsonrpc":"2.0","id":7,"result":1}');
    await peer.reply('{"jsonrpc":"2.0","id":1,"method":"boom"}');
    await peer.next();
    expect(events.map((info) => info.kind)).toEqual(['handler-failed']);
    await peer.client.close();
  });
});
