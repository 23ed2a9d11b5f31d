import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recorder } from '../test/helpers.js';
import { createNewlineDecoder } from './newline.js';
import { createStreamTransport } from './stream-transport.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A 64 KiB-per-chunk split of one newline-framed message of about `size` bytes. */
function chunksOf(size: number): { text: string; chunks: Buffer[] } {
  const text = JSON.stringify({ jsonrpc: '2.0', method: 'big', params: ['x'.repeat(size)] });
  const bytes = Buffer.from(`${text}\n`);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
  return { text, chunks };
}

describe('a message split over many chunks', () => {
  it('is not copied chunk by chunk on its way through a stream transport', async () => {
    const { text, chunks } = chunksOf(1024 * 1024);
    const input = new PassThrough();
    const transport = createStreamTransport(input, new PassThrough(), { framing: 'newline' });
    const rec = recorder();
    await transport.start(rec);
    // Count the copies of byte ranges (Buffer.from on bytes) while the message goes through.
    const from = vi.spyOn(Buffer, 'from');
    for (const chunk of chunks) input.write(chunk);
    const received = await rec.next();
    const copies = from.mock.calls.filter(([value]) => value instanceof Uint8Array).length;
    from.mockRestore();
    expect(received).toBe(text);
    expect(chunks.length).toBeGreaterThan(16);
    expect(copies).toBe(0);
    await transport.close();
  });

  it('is still copied when the caller keeps its chunks (the default)', () => {
    const messages: string[] = [];
    const decoder = createNewlineDecoder({ onMessage: (m) => messages.push(m) });
    const reused = Buffer.from('{"a":1');
    decoder.push(reused);
    reused.fill(0x20); // The caller writes over its buffer once pushed.
    decoder.push(Buffer.from('}\n'));
    expect(messages).toEqual(['{"a":1}']);
  });

  it('keeps views with retainChunks: the message is the bytes as pushed', () => {
    const messages: string[] = [];
    const decoder = createNewlineDecoder({
      onMessage: (m) => messages.push(m),
      retainChunks: true,
    });
    const { text, chunks } = chunksOf(200_000);
    for (const chunk of chunks) decoder.push(chunk);
    expect(messages).toEqual([text]);
    expect(decoder.bufferedBytes).toBe(0);
  });
});
