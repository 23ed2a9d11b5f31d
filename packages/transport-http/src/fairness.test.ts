import { createServer } from '@jsonrpc-kit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, rawExchange, rawPost } from '../test/helpers.js';
import { listen } from './listen.js';

afterEach(closeAll);

const batchOf = (n: number, method: string): string =>
  `[${Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"${method}"}`).join(',')}]`;

describe('fair admission over HTTP', () => {
  it("answers one client's trivial call while another floods batches of slow calls", async () => {
    // Both clients are on 127.0.0.1 here, so the key is a header; in production the default key,
    // the remote address, tells them apart.
    const server = createServer({
      clientKey: (ctx) => ctx.headers?.['x-client'] as string | undefined,
    });
    const gates: Array<() => void> = [];
    let running = 0;
    server.method('slow', async () => {
      running++;
      await new Promise<void>((resolve) => gates.push(resolve));
      return 'slow';
    });
    server.method('fast', () => 'fast');
    await using http = await listen(server);
    const order: string[] = [];
    const flood = Array.from({ length: 11 }, () =>
      rawExchange(
        http.port,
        rawPost(batchOf(100, 'slow'), { 'content-type': 'application/json', 'x-client': 'a' }),
        10_000,
      ).then((r) => {
        order.push('a');
        return r;
      }),
    );
    // Bounded wait until A holds its share of the 64 slots (48) and queues the rest.
    for (let i = 0; i < 500 && running < 48; i++) await new Promise((r) => setTimeout(r, 5));
    expect(running).toBe(48);
    const fast = await rawExchange(
      http.port,
      rawPost('{"jsonrpc":"2.0","id":1,"method":"fast"}', {
        'content-type': 'application/json',
        'x-client': 'b',
      }),
    );
    order.push('b');
    expect(fast.body).toBe('{"jsonrpc":"2.0","id":1,"result":"fast"}');
    // B was answered before any of A's exchanges.
    expect(order).toEqual(['b']);
    for (let i = 0; i < 2000 && order.length < 12; i++) {
      for (const gate of gates.splice(0)) gate();
      await new Promise((r) => setTimeout(r, 1));
    }
    const answers = await Promise.all(flood);
    expect(answers.every((r) => JSON.parse(r.body).length === 100)).toBe(true);
  });
});
