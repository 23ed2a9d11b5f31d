// The Streamable HTTP client drops an answer stream once every request it carries has settled.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@jsonrpc-kit/client';
import { TimeoutError } from '@jsonrpc-kit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, serve } from '../test/helpers.js';
import { createStreamableHttpTransport } from './streamable-transport.js';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await closeAll();
});

/** One answer stream the server holds open, and when its connection went away. */
interface Held {
  readonly method: string;
  closed: boolean;
}

/**
 * A hostile Streamable HTTP server: it answers every POST with an event stream, writes one event
 * with an id (a notification), then the answer when `answer` is set, and never ends the stream;
 * a GET (a resumption) is held open the same way.
 */
async function holdingServer(answer: boolean) {
  const held: Held[] = [];
  const { url } = await serve((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry: Held = { method: req.method ?? '', closed: false };
      held.push(entry);
      res.on('close', () => {
        entry.closed = true;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
      res.write('id: 1\ndata: {"jsonrpc":"2.0","method":"note"}\n\n');
      if (req.method !== 'POST' || !answer) return;
      const { id } = JSON.parse(Buffer.concat(chunks).toString()) as { id: number };
      res.write(`id: 2\ndata: {"jsonrpc":"2.0","id":${id},"result":"ok"}\n\n`);
    });
  });
  return { url, held };
}

/** Waits up to `ms` for `check`. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 20) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

describe('createStreamableHttpTransport: a settled exchange lets go of its stream', () => {
  it('drops the answer stream of a call that timed out, and does not resume it', async () => {
    const { url, held } = await holdingServer(false);
    const client = createClient(createStreamableHttpTransport({ url }), {
      onNotification: () => {},
    });
    closers.push(() => client.close());
    await expect(client.request('wait', [], { timeout: 200 })).rejects.toBeInstanceOf(TimeoutError);
    expect(await eventually(() => held[0]?.closed === true, 5000)).toBe(true);
    // No resumption (a GET with Last-Event-ID) of a stream nobody waits for any more.
    await sleep(800);
    expect(held.map((h) => h.method)).toEqual(['POST']);
  });

  it('drops the answer stream of a call aborted by its signal', async () => {
    const { url, held } = await holdingServer(false);
    const client = createClient(createStreamableHttpTransport({ url }), {
      onNotification: () => {},
    });
    closers.push(() => client.close());
    const controller = new AbortController();
    const call = client.request('wait', [], { signal: controller.signal });
    await eventually(() => held.length === 1, 5000);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await eventually(() => held[0]?.closed === true, 5000)).toBe(true);
    await sleep(800);
    expect(held.map((h) => h.method)).toEqual(['POST']);
  });

  it('drops the answer stream once the answer came, though the server holds it open', async () => {
    const { url, held } = await holdingServer(true);
    const client = createClient(createStreamableHttpTransport({ url }), {
      onNotification: () => {},
      callTimeout: 5000,
    });
    closers.push(() => client.close());
    expect(await client.request('wait', [])).toBe('ok');
    expect(await eventually(() => held[0]?.closed === true, 5000)).toBe(true);
  });

  it('resolves the send once the answer came on a stream held open', async () => {
    const { url } = await holdingServer(true);
    const transport = createStreamableHttpTransport({ url });
    closers.push(() => transport.close());
    await transport.start({ onMessage: () => {}, onClose: () => {} });
    const sent = transport.send('{"jsonrpc":"2.0","id":7,"method":"wait"}');
    const outcome = await Promise.race([
      sent.then(() => 'resolved'),
      sleep(1500).then(() => 'pending'),
    ]);
    expect(outcome).toBe('resolved');
  });
});
