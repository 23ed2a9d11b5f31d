import type { TransportHandler } from '@jsonrpc-kit/core';
import { createClient as createRedisClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { skipReason, useRedisServer } from '../test/redis-server.js';
import { createRedisQueueClientTransport } from './queue-client-transport.js';

describe.skipIf(skipReason !== undefined)('queue transport wire form, raw', () => {
  const redis = useRedisServer();

  it('puts the exact text on the stream; the first answer settles, a duplicate is dropped', async () => {
    const raw = createRedisClient({ url: redis.url });
    await raw.connect();
    const messages: string[] = [];
    const handler: TransportHandler = {
      onMessage: (m) => void messages.push(m),
      onClose: () => {},
    };
    await using transport = createRedisQueueClientTransport({
      url: redis.url,
      queue: 'q-raw',
      blockMs: 100,
    });
    await transport.start(handler);
    const request = '{"jsonrpc":"2.0","id":9007199254740993,"method":"add","params":[1,2]}';
    await transport.send(request);
    await transport.send('{"jsonrpc":"2.0","method":"log"}');
    const entries = (await raw.sendCommand(['XRANGE', 'q-raw', '-', '+'])) as [string, string[]][];
    expect(entries.map(([, fields]) => fields)).toEqual([
      ['c', '0', 'r', `q-raw:reply:${transport.callerId}`, 'b', request],
      ['c', '1', 'r', `q-raw:reply:${transport.callerId}`, 'b', '{"jsonrpc":"2.0","method":"log"}'],
    ]);
    const answer = '{"jsonrpc":"2.0","id":9007199254740993,"result":3}';
    const replyTo = `q-raw:reply:${transport.callerId}`;
    // Two workers answered the same request (the first one died before its XACK).
    await raw.sendCommand(['XADD', replyTo, '*', 'c', '0', 'b', answer]);
    await raw.sendCommand(['XADD', replyTo, '*', 'c', '0', 'b', answer]);
    // And an answer for the notification, which expects none, is dropped too.
    await raw.sendCommand(['XADD', replyTo, '*', 'c', '1', 'b', answer]);
    await expect.poll(() => transport.duplicates, { timeout: 3000 }).toBe(2);
    expect(messages).toEqual([answer]);
    await transport.close();
    expect(await raw.sendCommand(['EXISTS', replyTo])).toBe(0);
    raw.destroy();
  });

  it('drops an answer that comes after its caller gave up', async () => {
    const raw = createRedisClient({ url: redis.url });
    await raw.connect();
    const messages: string[] = [];
    await using transport = createRedisQueueClientTransport({
      url: redis.url,
      queue: 'q-late',
      blockMs: 100,
    });
    await transport.start({ onMessage: (m) => void messages.push(m), onClose: () => {} });
    const gaveUp = new AbortController();
    await transport.send('{"jsonrpc":"2.0","id":1,"method":"slow"}', { signal: gaveUp.signal });
    gaveUp.abort();
    const answer = '{"jsonrpc":"2.0","id":1,"result":"late"}';
    await raw.sendCommand([
      'XADD',
      `q-late:reply:${transport.callerId}`,
      '*',
      'c',
      '0',
      'b',
      answer,
    ]);
    await expect.poll(() => transport.duplicates, { timeout: 3000 }).toBe(1);
    expect(messages).toEqual([]);
    raw.destroy();
  });

  it('forgets a message whose answer does not come within forgetAfter, even with no signal', async () => {
    const raw = createRedisClient({ url: redis.url });
    await raw.connect();
    const messages: string[] = [];
    await using transport = createRedisQueueClientTransport({
      url: redis.url,
      queue: 'q-forget',
      blockMs: 100,
      forgetAfter: 150,
    });
    await transport.start({ onMessage: (m) => void messages.push(m), onClose: () => {} });
    const replyTo = `q-forget:reply:${transport.callerId}`;
    const answer = (c: number, id: number) =>
      raw.sendCommand([
        'XADD',
        replyTo,
        '*',
        'c',
        String(c),
        'b',
        `{"jsonrpc":"2.0","id":${id},"result":0}`,
      ]);
    // Lost with Redis, from calls that gave up without telling the transport (no signal).
    await transport.send('{"jsonrpc":"2.0","id":1,"method":"lost"}');
    await transport.send('{"jsonrpc":"2.0","id":2,"method":"lost"}');
    await new Promise((resolve) => setTimeout(resolve, 350));
    // A message sent now is kept: its answer passes; the old ones' are dropped as late.
    await transport.send('{"jsonrpc":"2.0","id":3,"method":"fresh"}');
    await answer(2, 3);
    await answer(0, 1);
    await answer(1, 2);
    await expect.poll(() => transport.duplicates, { timeout: 3000 }).toBe(2);
    expect(messages).toEqual(['{"jsonrpc":"2.0","id":3,"result":0}']);
    expect(() =>
      createRedisQueueClientTransport({ url: redis.url, queue: 'q', forgetAfter: 0 }),
    ).toThrow(RangeError);
    raw.destroy();
  });
});
