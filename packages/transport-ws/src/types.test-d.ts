import type { Transport } from '@jsonrpc-kit/core';
import type { ConnectionLike } from '@jsonrpc-kit/core/engine';
import { describe, expectTypeOf, it } from 'vitest';
import { createEchoHandler, type EchoConnection } from '../test/echo-handler.js';
import { createWebSocketTransport, type WebSocketTransportState } from './client-transport.js';
import { createWebSocketServer, type JsonRpcWebSocketServer } from './server.js';

describe('types', () => {
  it('types connections with the handler’s connection type', () => {
    const make = () => createWebSocketServer(createEchoHandler(), { noServer: true });
    expectTypeOf(make).returns.toEqualTypeOf<JsonRpcWebSocketServer<EchoConnection>>();
    expectTypeOf<ReturnType<typeof make>['connections']>().toEqualTypeOf<
      ReadonlySet<EchoConnection>
    >();
    expectTypeOf<JsonRpcWebSocketServer['connections']>().toEqualTypeOf<
      ReadonlySet<ConnectionLike>
    >();
    // @ts-expect-error a server is required
    const noHandler = () => createWebSocketServer({ port: 0 });
    void noHandler;
    const badHeartbeat = () =>
      // @ts-expect-error heartbeat needs both interval and timeout
      createWebSocketServer(createEchoHandler(), { port: 0, heartbeat: { interval: 1 } });
    void badHeartbeat;
  });

  it('types the client transport', () => {
    const make = () => createWebSocketTransport({ url: 'ws://127.0.0.1:1' });
    expectTypeOf(make).returns.toExtend<Transport>();
    expectTypeOf<ReturnType<typeof make>['state']>().toEqualTypeOf<WebSocketTransportState>();
    expectTypeOf<WebSocketTransportState>().toEqualTypeOf<
      'connecting' | 'open' | 'reconnecting' | 'closed'
    >();
    const badStrategy = () =>
      // @ts-expect-error unknown strategy
      createWebSocketTransport({ url: 'ws://x', reconnect: { strategy: 'linear' } });
    void badStrategy;
    // @ts-expect-error url is required
    const noUrl = () => createWebSocketTransport({});
    void noUrl;
  });
});
