/**
 * Progress over plain HTTP, as the client README says: one JSON answer per POST carries nothing
 * but the answer, so `onProgress` is never called and the call itself works.
 */
import { createClient } from '@jsonrpc-kit/client';
import { createServer } from '@jsonrpc-kit/server';
import { createHttpTransport, listen } from '@jsonrpc-kit/transport-http/node';
import { expect, it } from 'vitest';

it('over plain HTTP, onProgress is never called and the call still answers', async () => {
  const server = createServer();
  let reported = 0;
  server.method('work', async (_params, ctx) => {
    // Over handle() (HTTP) there is no channel back: the handler has no reporter.
    if (ctx.progress !== undefined) {
      await ctx.progress({ step: 1 });
      reported++;
    }
    return 'done';
  });
  const http = await listen(server, { port: 0, host: '127.0.0.1' });
  const client = createClient(createHttpTransport({ url: http.url }), { callTimeout: 5_000 });
  try {
    const seen: unknown[] = [];
    expect(await client.request('work', {}, { onProgress: (value) => seen.push(value) })).toBe(
      'done',
    );
    expect(seen).toEqual([]);
    expect(reported).toBe(0);
  } finally {
    await client.close();
    await http.close();
  }
});
