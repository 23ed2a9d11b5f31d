import { describe, expect, it } from 'vitest';
import { ConnectionClosedError } from './errors.js';
import { createMemoryTransportPair } from './memory-transport.js';
import type { TransportHandler } from './transport.js';

function recorder(): TransportHandler & { messages: string[]; closes: (Error | undefined)[] } {
  const messages: string[] = [];
  const closes: (Error | undefined)[] = [];
  return {
    messages,
    closes,
    onMessage: (m) => messages.push(m),
    onClose: (e) => closes.push(e),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createMemoryTransportPair', () => {
  it('delivers in order, both ways, asynchronously', async () => {
    const [a, b] = createMemoryTransportPair();
    const ra = recorder();
    const rb = recorder();
    await a.start(ra);
    await b.start(rb);
    void a.send('1');
    void a.send('2');
    void b.send('x');
    expect(rb.messages).toEqual([]); // not synchronously
    await tick();
    expect(rb.messages).toEqual(['1', '2']);
    expect(ra.messages).toEqual(['x']);
  });

  it('buffers what arrives before start', async () => {
    const [a, b] = createMemoryTransportPair();
    await a.send('early');
    await tick();
    const rb = recorder();
    await b.start(rb);
    await tick();
    expect(rb.messages).toEqual(['early']);
  });

  it('closes both sides once, after delivering what was sent', async () => {
    const [a, b] = createMemoryTransportPair();
    const ra = recorder();
    const rb = recorder();
    await a.start(ra);
    await b.start(rb);
    await a.send('last');
    await a.close();
    await a.close();
    await b.close();
    await tick();
    expect(rb.messages).toEqual(['last']);
    expect(ra.closes).toEqual([undefined]);
    expect(rb.closes).toEqual([undefined]);
    await expect(a.send('x')).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(b.send('x')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('passes a close reason on as an error', async () => {
    const [a, b] = createMemoryTransportPair();
    const rb = recorder();
    await b.start(rb);
    await a.close(new Error('gone'));
    await tick();
    expect(rb.closes[0]?.message).toBe('gone');
  });

  it('has exactly one owner', async () => {
    const [a] = createMemoryTransportPair();
    await a.start(recorder());
    await expect(a.start(recorder())).rejects.toThrow(/already started/);
  });

  it('reports an exception thrown by onMessage to onError and keeps delivering', async () => {
    const [a, b] = createMemoryTransportPair();
    const errors: Error[] = [];
    const messages: string[] = [];
    await b.start({
      onMessage: (m) => {
        if (m === 'bad') throw new Error('owner failed');
        messages.push(m);
      },
      onClose: () => {},
      onError: (e) => errors.push(e),
    });
    void a.send('bad');
    void a.send('good');
    await tick();
    expect(errors.map((e) => e.message)).toEqual(['owner failed']);
    expect(messages).toEqual(['good']);
  });
});
