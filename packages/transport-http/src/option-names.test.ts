import { createServer } from '@jsonrpc-kit/server';
import { describe, expect, it } from 'vitest';
import { createFetchHandler } from './fetch-handler.js';
import { createHttpTransport } from './http-transport.js';
import { listen } from './listen.js';
import { createHttpHandler } from './node-handler.js';
import { createHttpTransport as createNodeHttpTransport } from './node-transport.js';
import { createStreamableHttpHandler } from './streamable-handler.js';
import { createStreamableHttpTransport } from './streamable-transport.js';

describe('option names', () => {
  const server = createServer();

  it('the handlers refuse an unknown option, and name the replacement of a renamed one', () => {
    for (const [name, make] of [
      ['createHttpHandler', (o: object) => createHttpHandler(server, o as never)],
      ['createFetchHandler', (o: object) => createFetchHandler(server, o as never)],
      [
        'createStreamableHttpHandler',
        (o: object) => createStreamableHttpHandler(server, o as never),
      ],
    ] as const) {
      expect(() => make({ maxRequestBytes: 10 })).toThrow(
        `${name}: unknown option "maxRequestBytes" (renamed: use maxMessageBytes)`,
      );
      expect(() => make({ bodyTimout: 10 })).toThrow(`${name}: unknown option "bodyTimout"`);
      expect(() => make({ maxMessageBytes: 10 })).not.toThrow();
    }
  });

  it('listen refuses an unknown option before it listens, and takes its own and the handler options', async () => {
    await expect(listen(server, { port: 0, maxRequestBytes: 10 } as never)).rejects.toThrow(
      'listen: unknown option "maxRequestBytes" (renamed: use maxMessageBytes)',
    );
    const http = await listen(server, { host: '127.0.0.1', port: 0, maxMessageBytes: 10 });
    await http.close();
  });

  it('the client transports refuse an unknown option', () => {
    const url = 'http://127.0.0.1:1/';
    expect(() => createHttpTransport({ url, timeOut: 1 } as never)).toThrow(
      'createHttpTransport: unknown option "timeOut"',
    );
    expect(() => createNodeHttpTransport({ url, pipelining: 1, poolSize: 2 } as never)).toThrow(
      'createHttpTransport: unknown option "poolSize"',
    );
    expect(() => createStreamableHttpTransport({ url, retry: {} } as never)).toThrow(
      'createStreamableHttpTransport: unknown option "retry"',
    );
    // Reconnection takes core's backoff shape: the old names point to the new ones.
    expect(() =>
      createStreamableHttpTransport({ url, reconnect: { initialDelay: 5 } } as never),
    ).toThrow(
      'createStreamableHttpTransport: reconnect: unknown option "initialDelay" (renamed: use delay)',
    );
    expect(() =>
      createStreamableHttpTransport({ url, reconnect: { maxRetries: 5 } } as never),
    ).toThrow(
      'createStreamableHttpTransport: reconnect: unknown option "maxRetries" (renamed: use maxAttempts)',
    );
  });
});
