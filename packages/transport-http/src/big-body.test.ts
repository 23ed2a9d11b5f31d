import type { IncomingMessage, ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MessageHandler } from '@jsonrpc-kit/core/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, rawExchange, serve } from '../test/helpers.js';
import { createHttpHandler } from './node-handler.js';

afterEach(closeAll);

// A full garbage collection on demand, so that what is still reachable can be counted.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SIZE = 8 * 1024 * 1024;
const LIMIT = 4 * SIZE;

/** A POST whose body is one request echoing a string of SIZE bytes, built once, as bytes. */
function bigPost(): Buffer {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'echo',
    params: ['x'.repeat(SIZE)],
  });
  const head = `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
  return Buffer.from(head + body, 'latin1');
}

describe('createHttpHandler: memory of a big body', () => {
  it('keeps no copy of the body bytes alive while the server handles the text', async () => {
    // Counting memory, not time: after a full GC inside `handle`, the bytes still reachable are
    // the ones the frames below it hold. The chunks (one copy) and the buffer they were joined
    // into (another) must be garbage by then: the text is all the server needs.
    let held: number | undefined;
    let baseline = 0;
    const server: MessageHandler = {
      maxMessageBytes: LIMIT,
      handle(text) {
        // Twice: the first collection frees the buffers, the second finishes releasing their
        // memory (array buffers are swept after the collection that found them dead).
        gc();
        gc();
        held = process.memoryUsage().arrayBuffers - baseline;
        return Promise.resolve(`{"jsonrpc":"2.0","id":1,"result":${text.length}}`);
      },
    };
    const { port } = await serve(createHttpHandler(server, { maxMessageBytes: LIMIT }));
    const request = bigPost();
    gc();
    baseline = process.memoryUsage().arrayBuffers;
    const r = await rawExchange(port, request, 10_000);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).result).toBe(request.length - request.indexOf('\r\n\r\n') - 4);
    expect(held).toBeDefined();
    expect(held!).toBeLessThan(SIZE / 2);
  }, 20_000);
});

describe('createHttpHandler: writing a big answer', () => {
  it('writes the head on its own, so the body is not copied into one string with it', async () => {
    // node:http joins the head and a string body into one string when both go out in one write:
    // for a big answer that is one more copy of it. What reaches the socket is counted here.
    const answer = `{"jsonrpc":"2.0","id":1,"result":"${'y'.repeat(SIZE)}"}`;
    const server: MessageHandler = { handle: () => Promise.resolve(answer) };
    const handler = createHttpHandler(server);
    const writes: number[] = [];
    const { port } = await serve((req: IncomingMessage, res: ServerResponse) => {
      const socket = res.socket!;
      const write = socket.write;
      socket.write = function (this: typeof socket, chunk: string | Uint8Array, ...rest: never[]) {
        writes.push(chunk.length);
        return write.call(this, chunk, ...rest);
      } as typeof socket.write;
      handler(req, res);
    });
    const small = '{"jsonrpc":"2.0","id":1,"method":"a"}';
    const r = await rawExchange(
      port,
      `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${small.length}\r\n\r\n${small}`,
      10_000,
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String(answer.length));
    expect(r.body).toBe(answer);
    // The head, then the body as it is (node:http may end with an empty write).
    const written = writes.filter((length) => length > 0);
    expect(written).toHaveLength(2);
    expect(written[0]).toBeLessThan(1024);
    expect(written[1]).toBe(answer.length);
  }, 20_000);
});
